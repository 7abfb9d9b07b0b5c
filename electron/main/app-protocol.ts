/**
 * Serves the built renderer under app://spinneret/ with the CSP header. The handler is a plain
 * Request → Response function, registered with `protocol.handle` by main and tested without Electron.
 */
import { readFile } from 'node:fs/promises';
import { CONTENT_SECURITY_POLICY } from '../renderer-host/security-headers.js';
import { mimeType, resolveStaticPath } from '../renderer-host/static-files.js';
import { APP_HOST, APP_SCHEME } from './app-url.js';

/** What `protocol.registerSchemesAsPrivileged` needs before the app is ready. */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

/** A handler for app:// requests that reads files from `rendererDir` and nothing else. */
export function createAppProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return new Response('Not found', { status: 404 });
    }
    const file = resolveStaticPath(rendererDir, url.pathname);
    const body = file ? await readFile(file).catch(() => null) : null;
    if (!file || !body) return new Response('Not found', { status: 404 });
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: {
        'Content-Type': mimeType(file),
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'X-Content-Type-Options': 'nosniff',
      },
    });
  };
}
