/** Shared helpers of the service tests: temporary state dirs, waiting for a crawl, reading it whole. */
import { after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { CrawlSummary, UrlRow } from '../../shared/model.js';
import type { CrawlService } from '../../electron/service/types.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test file ends. */
export function tempDir(prefix = 'spinneret-svc-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Resolves with the summary when crawl `id` finishes or fails. */
export function settled(service: CrawlService, id: string): Promise<CrawlSummary> {
  return new Promise((resolve) => {
    const offs = [service.on('finished', (s) => s.id === id && done(s)), service.on('failed', (s) => s.id === id && done(s))];
    function done(s: CrawlSummary) {
      offs.forEach((off) => off());
      resolve(s);
    }
  });
}

/** Resolves once crawl `id` has fetched at least `n` URLs (a progress event says so): the moment to pause it. */
export function fetchedAtLeast(service: CrawlService, id: string, n: number): Promise<void> {
  return new Promise((resolve) => {
    const off = service.on('progress', (e) => {
      if (e.crawlId === id && e.counters.fetched >= n) {
        off();
        resolve();
      }
    });
  });
}

/** Every row of a crawl, in id order. */
export function allRows(service: CrawlService, id: string): UrlRow[] {
  const rows: UrlRow[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = service.queryUrls(id, { offset, limit: 1000 });
    rows.push(...page.rows);
    if (offset + 1000 >= page.total) return rows;
  }
}

/** The CSV export of a crawl as text. */
export async function csvOf(service: CrawlService, id: string, filter?: Parameters<CrawlService['exportCsv']>[2]): Promise<string> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  await service.exportCsv(id, out, filter);
  return Buffer.concat(chunks).toString('utf8');
}

/** Copies a state dir as it is on disk right now (what a kill at this instant would leave). */
export function snapshotDir(from: string): string {
  const to = tempDir('spinneret-snap-');
  fs.cpSync(from, to, { recursive: true });
  return to;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Parses CSV text (RFC 4180 quoting) into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows;
}

/**
 * CSV rows keyed by URL, without the columns that depend on which discovery came first
 * (source, depth, discovered_from: with concurrent fetches, a URL both listed and linked is found
 * first by whichever answer arrives first, in any two crawls alike); response_time_ms only says
 * whether the URL was timed (two fetches of one page never take the same time).
 */
export function csvByUrl(text: string): Map<string, string> {
  const [header, ...rows] = parseCsv(text);
  const skip = new Set(['source', 'depth', 'discovered_from'].map((c) => header!.indexOf(c)));
  const time = header!.indexOf('response_time_ms');
  return new Map(
    rows.map((r) => [
      r[0]!,
      r
        .map((c, i) => (i === time && c !== '' ? 'timed' : c))
        .filter((_, i) => !skip.has(i))
        .join('\u0001'),
    ]),
  );
}
