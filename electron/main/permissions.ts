/**
 * Deny-by-default permissions and the CSP header for the app's session. The page needs no camera,
 * no notifications, no geolocation; only writing to the clipboard (copy a URL) is let through, and
 * only for our own page.
 */
import { CONTENT_SECURITY_POLICY } from '../renderer-host/security-headers.js';
import { isAppUrl } from './app-url.js';

const ALLOWED = new Set(['clipboard-sanitized-write']);

/** The parts of a Session this module configures. */
export interface SessionLike {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl?: string }) => void,
  ): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string, requestingOrigin: string, details: { requestingUrl?: string }) => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[]>; cancel?: boolean }) => void,
      ) => void,
    ): void;
  };
}

/** True when `permission`, asked by `url`, may be granted. Everything else is refused. */
export function permissionAllowed(permission: string, url: string | undefined): boolean {
  return ALLOWED.has(permission) && url !== undefined && isAppUrl(url);
}

/** Installs the permission handlers and the CSP header on a session. */
export function secureSession(ses: SessionLike): void {
  ses.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(permissionAllowed(permission, details.requestingUrl));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) => permissionAllowed(permission, details.requestingUrl ?? requestingOrigin));
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...(details.responseHeaders ?? {}) };
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-security-policy')) {
      headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
    }
    callback({ responseHeaders: headers });
  });
}
