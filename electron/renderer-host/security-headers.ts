/**
 * The Content-Security-Policy the app sends with its pages, in Electron (app:// responses) and in
 * browser mode (HTTP header). It matches renderer/index.html's meta policy: both apply, so neither may
 * be looser than the other needs.
 */

/** CSP for the renderer's pages. `connect-src` lets browser mode reach its own WebSocket only. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every browser-mode response carries. The token sits in the page URL: never leak it as a referrer. */
export const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
