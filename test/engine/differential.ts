/** Shared by the differential tests (a fast path against the usual way): inputs and a seeded random source. */
import type { TestContext } from 'node:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const DIR = fileURLToPath(new URL('../../../shared/conformance/sitemaps/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
}

/**
 * Every conformance sitemap, inflated when gzipped; null, with the test skipped and told why, when the
 * conformance folder is absent (it is in CI; a fresh clone may lack it).
 */
export function conformanceSitemaps(t: TestContext): { path: string; bytes: Buffer }[] | null {
  if (!existsSync(DIR)) {
    t.skip(`skipped: the conformance folder ${DIR} is not present (it is in CI; a fresh clone may lack it)`);
    return null;
  }
  return files(DIR).map((path) => {
    const bytes = readFileSync(path);
    return { path, bytes: bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes };
  });
}

/** A seeded pseudo-random source in [0, 1): the same documents and cuts on every run. */
export function rng(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}
