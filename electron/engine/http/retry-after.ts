/**
 * Retry-After (RFC 9110 §10.2.3): either delta-seconds or an HTTP-date.
 */

const DELTA_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/;

/**
 * Milliseconds to wait according to a Retry-After value, measured from `now`;
 * undefined when the header is absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  // Repeated headers arrive joined with ', '; the first one wins. An HTTP-date itself holds a
  // comma after the weekday, so only split when the value starts with digits.
  const delta = DELTA_SECONDS.exec(value.split(',')[0]!);
  if (delta) return Math.round(Number(delta[1]) * 1000);
  // Date.parse reads bare numbers as years; an HTTP-date always names a month.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
}
