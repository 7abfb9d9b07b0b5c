/**
 * The crawl's scope: whether a URL is within it, and the registrable domain ('domain' scope) that
 * needs the public-suffix list. Kept apart from url.ts, which the parse worker loads: the list
 * (tldts) is no part of the worker's work and would slow its start.
 */
import { getDomain } from 'tldts';
import type { ScopeMode } from '../../../shared/model.js';
import { canonicalHostOf, hostOf } from './url.js';

/**
 * The registrable domain ("eTLD+1") of a host: `shop.example.co.uk` → `example.co.uk`.
 * Private suffixes count (`alice.github.io` stays `alice.github.io`), since each is its own site.
 * IP addresses, `localhost` and hosts without a public suffix return the host itself.
 */
export function registrableDomain(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}

/**
 * Whether a URL is within the crawl's scope.
 * - 'host': same host name (scheme and port may differ, so http→https moves stay in scope);
 *   `www.example.com` and `example.com` are different hosts: choose 'domain' to cover both.
 * - 'domain': same registrable domain (any subdomain).
 * - 'any': every http(s) URL.
 * A URL that is not http(s) is never in scope. Throws INVALID_URL when startUrl is invalid.
 */
export function inScope(url: string, startUrl: string, mode: ScopeMode): boolean {
  return scopeTest(startUrl, mode)(url);
}

/**
 * inScope for one start URL and mode, with the start's host worked out once (a page asks for each of
 * its links). `alsoHosts`: more hosts of the site (those its start URL redirects through), each in
 * scope as the start's host is.
 */
export function scopeTest(startUrl: string, mode: ScopeMode, alsoHosts: readonly string[] = []): (url: string) => boolean {
  const startHost = mode === 'any' ? '' : hostOf(startUrl);
  const hosts = new Set(mode === 'host' ? [startHost, ...alsoHosts] : []);
  const domains = new Set(mode === 'domain' ? [startHost, ...alsoHosts].map(registrableDomain) : []);
  const hostIn = (host: string) => (mode === 'any' ? true : mode === 'host' ? hosts.has(host) : domains.has(registrableDomain(host)));
  // A page's links share a few hosts: the last one's answer is kept.
  let lastHost: string | null = null;
  let lastIn = false;
  return (url) => {
    // Most URLs are spelled canonically: their host is read from the text, not parsed.
    let host = canonicalHostOf(url);
    if (host === null) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return false;
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
      host = u.hostname;
    }
    if (host !== lastHost) {
      lastIn = hostIn(host);
      lastHost = host;
    }
    return lastIn;
  };
}
