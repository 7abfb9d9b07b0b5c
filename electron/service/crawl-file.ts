/**
 * Crawl files (`.spinneret`): everything one crawl holds, as one file another Spinneret can open.
 *
 *   SPINNERET-CRAWL <version>\n          plain text: what the file is, readable with `head -1`
 *   gzip(                                 the rest, one gzip stream
 *     {"format":"spinneret-crawl","version":1,"parts":[{"name","length"},…]}\n
 *     the parts' bytes, one after the other, each exactly its length
 *     {"sha256":{"<name>":"<hex>",…},"end":true}\n
 *   )
 *
 * Parts: entry.json (the crawl's catalog entry: name, settings, status, counters, times), its journal
 * (journal.jsonl), its URL list (list.txt, list mode) and its stored comparisons (compare-<id>.json and
 * .items). Lengths come first (the crawl does not change while it is saved: it is locked), digests
 * last (computed while the bytes stream out), so neither side ever holds a part in memory.
 *
 * Opening one checks, in order: the first line (a foreign file, or one of a newer format, is refused
 * before anything is read further), the gzip stream (a flipped byte fails its CRC or its inflate), the
 * manifest (known part names only: nothing is written outside the staging folder), each part's length
 * (a truncated file ends inside one) and SHA-256. Anything wrong is a BAD_CRAWL_FILE saying what.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { emptyCounters, type CrawlCounters, type CrawlStatus } from '../../shared/model.js';
import { ServiceError } from './errors.js';
import { validateSettings } from './catalog/settings.js';
import type { CatalogEntry } from './catalog/catalog.js';

export const CRAWL_FILE_MAGIC = 'SPINNERET-CRAWL';
export const CRAWL_FILE_VERSION = 1;
export const CRAWL_FILE_EXTENSION = '.spinneret';
export const ENTRY_PART = 'entry.json';
/** The parts a crawl file may hold (any other name is refused: a part becomes a file of that name). */
const PART_NAME = /^(entry\.json|journal\.jsonl|list\.txt|compare-[A-Za-z0-9_-]{1,64}\.(json|items))$/;
/** The manifest and trailer lines are small; a longer one is no crawl file's. */
const MAX_LINE = 1 << 20;
const READ_CHUNK = 1 << 20;

const bad = (message: string, cause?: unknown) => new ServiceError('BAD_CRAWL_FILE', message, cause === undefined ? undefined : { cause });

/** The names of a crawl folder's files that belong in its crawl file (the journal, list, comparisons). */
export function crawlFileParts(dir: string): string[] {
  const names = fs.readdirSync(dir).filter((n) => PART_NAME.test(n) && n !== ENTRY_PART && fs.statSync(path.join(dir, n)).isFile());
  // The journal first: an import reads it before anything it does not need.
  return names.sort((a, b) => (a === 'journal.jsonl' ? -1 : b === 'journal.jsonl' ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Writes a crawl file to `out` (ended when done): `entry` as entry.json, then `files` of `dir`.
 * Resolves with the bytes written. A file that changes size meanwhile fails the export.
 */
export async function writeCrawlFile(entry: unknown, dir: string, files: string[], out: Writable): Promise<{ bytes: number }> {
  const entryBytes = Buffer.from(JSON.stringify(entry));
  const parts = [{ name: ENTRY_PART, length: entryBytes.length }, ...files.map((name) => ({ name, length: fs.statSync(path.join(dir, name)).size }))];
  let bytes = 0;
  async function* body(): AsyncGenerator<Buffer> {
    yield Buffer.from(JSON.stringify({ format: 'spinneret-crawl', version: CRAWL_FILE_VERSION, parts }) + '\n');
    const sha256: Record<string, string> = {};
    for (const p of parts) {
      const hash = createHash('sha256');
      if (p.name === ENTRY_PART) {
        hash.update(entryBytes);
        yield entryBytes;
      } else if (p.length > 0) {
        let seen = 0;
        const rs = fs.createReadStream(path.join(dir, p.name), { start: 0, end: p.length - 1, highWaterMark: READ_CHUNK });
        for await (const chunk of rs as AsyncIterable<Buffer>) {
          hash.update(chunk);
          seen += chunk.length;
          yield chunk;
        }
        if (seen !== p.length) throw new ServiceError('EXPORT_FAILED', `${p.name} shrank from ${p.length} to ${seen} bytes while it was saved.`);
      }
      sha256[p.name] = hash.digest('hex');
    }
    yield Buffer.from(JSON.stringify({ sha256, end: true }) + '\n');
  }
  const header = Buffer.from(`${CRAWL_FILE_MAGIC} ${CRAWL_FILE_VERSION}\n`);
  await pipeline(
    body,
    zlib.createGzip({ level: 6 }),
    async function* (gz: AsyncIterable<Buffer>) {
      bytes += header.length;
      yield header;
      for await (const chunk of gz) {
        bytes += chunk.length;
        yield chunk;
      }
    },
    out,
  );
  return { bytes };
}

/** What a crawl file held, its parts written into the staging folder. */
export interface OpenedCrawlFile {
  /** entry.json, parsed (not validated: the service checks its fields). */
  entry: Record<string, unknown>;
  /** The part files written into the folder (entry.json not among them). */
  files: string[];
  version: number;
}

/**
 * Reads a crawl file from `input` into folder `dir` (created, empty), checking it as it goes (see the
 * header comment). Throws BAD_CRAWL_FILE; the caller removes the folder.
 */
export async function readCrawlFile(input: Readable, dir: string): Promise<OpenedCrawlFile> {
  const raw = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  // The plain first line.
  let head = Buffer.alloc(0);
  let nl = -1;
  while (nl < 0) {
    const next = await raw.next().catch((err: unknown) => {
      throw bad(`The crawl file could not be read: ${(err as Error).message}`, err);
    });
    if (next.done) break;
    head = Buffer.concat([head, toBuffer(next.value)]);
    nl = head.indexOf(0x0a);
    if (nl < 0 && head.length > 64) break;
  }
  const firstLine = (nl < 0 ? head.subarray(0, 64) : head.subarray(0, nl)).toString('latin1');
  if (!firstLine.startsWith(CRAWL_FILE_MAGIC + ' ')) {
    if (head.length === 0) throw bad('The file is empty: it is not a Spinneret crawl file.');
    const shown = JSON.stringify(firstLine.slice(0, 24).replace(/[^\x20-\x7e]/g, '.'));
    throw bad(
      `This is not a Spinneret crawl file: it starts with ${shown}, not "${CRAWL_FILE_MAGIC}". Open a .spinneret file saved by Spinneret (Save crawl, or export-crawl).`,
    );
  }
  const version = Number(firstLine.slice(CRAWL_FILE_MAGIC.length + 1).trim());
  if (!Number.isInteger(version) || version < 1) throw bad(`The crawl file's header is damaged ("${firstLine.slice(0, 40)}"): no format version.`);
  if (version > CRAWL_FILE_VERSION) {
    throw bad(`This crawl file has format ${version}, saved by a newer Spinneret; this one opens format ${CRAWL_FILE_VERSION}. Update Spinneret to open it.`);
  }

  // The rest through gunzip, read as lines and counted parts.
  const gunzip = zlib.createGunzip();
  const fed = pipeline(async function* () {
    yield head.subarray(nl + 1);
    for (;;) {
      const next = await raw.next();
      if (next.done) return;
      yield toBuffer(next.value);
    }
  }, gunzip);
  fed.catch(() => undefined); // its error also ends the reading below, which reports it
  const reader = new ChunkReader(gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  try {
    const manifest = parseJson(await reader.line('its table of contents'), 'table of contents') as { format?: unknown; version?: unknown; parts?: unknown };
    if (manifest.format !== 'spinneret-crawl' || !Array.isArray(manifest.parts)) throw bad('The crawl file is damaged: its table of contents is not one.');
    const parts: { name: string; length: number }[] = [];
    const names = new Set<string>();
    for (const p of manifest.parts as { name?: unknown; length?: unknown }[]) {
      if (!p || typeof p.name !== 'string' || !PART_NAME.test(p.name) || names.has(p.name)) {
        throw bad(`The crawl file is damaged or foreign: its table of contents names an unknown part ${JSON.stringify(p?.name)}.`);
      }
      if (typeof p.length !== 'number' || !Number.isSafeInteger(p.length) || p.length < 0)
        throw bad(`The crawl file is damaged: part ${p.name} has no valid length.`);
      names.add(p.name);
      parts.push({ name: p.name, length: p.length });
    }
    if (!names.has(ENTRY_PART)) throw bad(`The crawl file is damaged: it has no ${ENTRY_PART} (the crawl's settings and status).`);

    const digests = new Map<string, string>();
    let entryBytes: Buffer | null = null;
    for (const p of parts) {
      const hash = createHash('sha256');
      if (p.name === ENTRY_PART) {
        if (p.length > MAX_LINE * 8) throw bad(`The crawl file is damaged: its ${ENTRY_PART} claims ${p.length} bytes.`);
        const chunks: Buffer[] = [];
        await reader.copy(p.length, p.name, (c) => void chunks.push(Buffer.from(c)));
        entryBytes = Buffer.concat(chunks);
        hash.update(entryBytes);
      } else {
        const fh = await fs.promises.open(path.join(dir, p.name), 'wx');
        try {
          await reader.copy(p.length, p.name, async (c) => {
            hash.update(c);
            await fh.write(c);
          });
        } finally {
          await fh.close();
        }
      }
      digests.set(p.name, hash.digest('hex'));
    }
    const trailer = parseJson(await reader.line('its checksums'), 'checksums') as { sha256?: Record<string, unknown>; end?: unknown };
    if (trailer.end !== true || !trailer.sha256 || typeof trailer.sha256 !== 'object') throw bad('The crawl file is damaged: its checksums are missing.');
    for (const p of parts) {
      const want = trailer.sha256[p.name];
      if (want !== digests.get(p.name)) {
        throw bad(`The crawl file is damaged: part ${p.name} (${p.length} bytes) does not match its SHA-256 checksum. Save the crawl again from the original.`);
      }
    }
    if (!(await reader.atEnd())) throw bad('The crawl file is damaged: it goes on past its end.');
    await fed;
    const entry = parseJson(entryBytes!.toString('utf8'), ENTRY_PART);
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw bad(`The crawl file is damaged: its ${ENTRY_PART} is not an object.`);
    return { entry: entry as Record<string, unknown>, files: parts.filter((p) => p.name !== ENTRY_PART).map((p) => p.name), version };
  } catch (err) {
    gunzip.destroy();
    input.destroy();
    throw asBadFile(err);
  }
}

const STATUSES: readonly CrawlStatus[] = ['created', 'running', 'paused', 'finished', 'failed'];

/**
 * The catalog entry of an opened crawl from its entry.json: settings validated as a new crawl's are,
 * status as saved but never running (a crawl saved while marked running is paused), `imported` set.
 * Its id is the caller's to give. BAD_CRAWL_FILE when a field is missing or wrong.
 */
export function importedEntry(raw: Record<string, unknown>, imported: { at: number; file: string }): CatalogEntry {
  if (typeof raw.name !== 'string' || !raw.name.trim()) throw bad(`The crawl file is damaged: its ${ENTRY_PART} has no crawl name.`);
  if (!STATUSES.includes(raw.status as CrawlStatus))
    throw bad(`The crawl file is damaged: its crawl status ${JSON.stringify(raw.status)} is none Spinneret knows.`);
  let settings;
  try {
    settings = validateSettings(raw.settings);
  } catch (err) {
    throw bad(`The crawl file's settings are not valid here: ${(err as Error).message}`, err);
  }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  // Replaced by the journal's own once it is replayed (a crawl never started has none).
  const counters: CrawlCounters = { ...emptyCounters(), ...(raw.counters && typeof raw.counters === 'object' ? (raw.counters as Partial<CrawlCounters>) : {}) };
  const status = raw.status === 'running' ? 'paused' : (raw.status as CrawlStatus);
  const e: CatalogEntry = {
    id: '',
    name: raw.name.trim().slice(0, 200),
    settings,
    status,
    counters,
    createdAt: num(raw.createdAt) ?? imported.at,
    updatedAt: imported.at,
    imported,
  };
  const startedAt = num(raw.startedAt);
  const finishedAt = num(raw.finishedAt);
  const listSize = num(raw.listSize);
  if (startedAt !== undefined) e.startedAt = startedAt;
  if (typeof raw.siteUrl === 'string' && /^https?:\/\//.test(raw.siteUrl)) e.siteUrl = raw.siteUrl;
  const activeMs = num(raw.activeMs);
  if (activeMs !== undefined && activeMs >= 0) e.activeMs = activeMs;
  if (finishedAt !== undefined && (status === 'finished' || status === 'failed')) e.finishedAt = finishedAt;
  if (listSize !== undefined) e.listSize = listSize;
  if (typeof raw.baseId === 'string') e.baseId = raw.baseId;
  if (typeof raw.changedOnly === 'boolean') e.changedOnly = raw.changedOnly;
  if (raw.stopped === true && status === 'finished') e.stopped = true;
  const err = raw.error as { code?: unknown; message?: unknown } | undefined;
  if (err && typeof err.code === 'string' && typeof err.message === 'string') e.error = { code: err.code, message: err.message };
  if (raw.status === 'running') {
    e.error = { code: 'INTERRUPTED', message: 'This crawl was saved while it was running; resume it to continue where it was.' };
  }
  return e;
}

/** What a failure while reading means to the analyst. */
function asBadFile(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(e?.message ?? '')) {
    return bad('The crawl file is truncated: it ends before its last part. Copy or download it again.', err);
  }
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) {
    return bad(`The crawl file is damaged: its compressed data cannot be read (${e.message}). Copy or download it again.`, err);
  }
  if (e?.code === 'ENOSPC' || e?.code === 'EACCES' || e?.code === 'EROFS') {
    return new ServiceError('JOURNAL_WRITE_FAILED', `The crawl could not be written to disk: ${e.message}`, { cause: err });
  }
  return bad(`The crawl file could not be read: ${e?.message ?? String(err)}`, err);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw bad(`The crawl file is damaged: its ${what} cannot be read.`);
  }
}

function toBuffer(c: Buffer | string): Buffer {
  return typeof c === 'string' ? Buffer.from(c) : c;
}

/** Lines and counted byte runs off an async iterator of Buffers, holding one chunk at a time. */
class ChunkReader {
  private buf: Buffer = Buffer.alloc(0);
  private done = false;
  constructor(private readonly it: AsyncIterator<Buffer>) {}

  private async more(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.it.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, next.value]) : next.value;
    return true;
  }

  async line(what: string): Promise<string> {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl >= 0) {
        const s = this.buf.subarray(0, nl).toString('utf8');
        this.buf = this.buf.subarray(nl + 1);
        return s;
      }
      if (this.buf.length > MAX_LINE) throw bad(`The crawl file is damaged: ${what} never ends.`);
      if (!(await this.more())) throw bad(`The crawl file is truncated: it ends before ${what}.`);
    }
  }

  /** Hands exactly `n` bytes to `sink`, in pieces. */
  async copy(n: number, name: string, sink: (chunk: Buffer) => void | Promise<void>): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.more())) {
        throw bad(`The crawl file is truncated: it ends inside part ${name} (${n - left} of ${n} bytes). Copy or download it again.`);
      }
      const take = Math.min(left, this.buf.length);
      const piece = this.buf.subarray(0, take);
      this.buf = this.buf.subarray(take);
      left -= take;
      await sink(piece);
    }
  }

  async atEnd(): Promise<boolean> {
    while (this.buf.length === 0) if (!(await this.more())) return true;
    return false;
  }
}
