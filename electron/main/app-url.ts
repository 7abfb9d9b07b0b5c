/**
 * The app's own origin. The renderer is served from app://spinneret/ (a privileged, secure custom
 * scheme) rather than file://, so the page gets a real origin and no file-system reach.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'spinneret';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The page every window loads. */
export const APP_START_URL = `${APP_ORIGIN}/index.html`;

/** True for URLs of our own page (any path under app://spinneret/). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

/** True for links the system browser may open: plain http(s), with a host and no credentials. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password;
  } catch {
    return false;
  }
}
