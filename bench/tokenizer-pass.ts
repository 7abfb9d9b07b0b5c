/**
 * The baseline the ingest is compared with: a bare pass of the tokenizer the sitemap parser uses
 * (htmlparser2's Tokenizer, xmlMode, entities decoded) over the same inflated bytes, with UTF-8
 * decoding (the tokenizer reads strings) and empty callbacks. Inflating is not timed: the bytes
 * are inflated first, then tokenized in the chunk size the ingest's gunzip hands the parser.
 */
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { TextDecoder } from 'node:util';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { INFLATE_CHUNK, streamSitemap, streamSitemapInWorker } from '../electron/engine/index.js';

/** What streamSitemap's gunzip hands the parser at a time. */
const CHUNK = INFLATE_CHUNK;

const noop = (): void => {};
const CALLBACKS: TokenizerCallbacks = {
  onattribdata: noop,
  onattribentity: noop,
  onattribend: noop,
  onattribname: noop,
  oncdata: noop,
  onclosetag: noop,
  oncomment: noop,
  ondeclaration: noop,
  onend: noop,
  onopentagend: noop,
  onopentagname: noop,
  onprocessinginstruction: noop,
  onselfclosingtag: noop,
  ontext: noop,
  ontextentity: noop,
};

/** Milliseconds to decode and tokenize `xml` in CHUNK-sized writes. */
export function tokenizeMs(xml: Buffer): number {
  const t0 = performance.now();
  const decoder = new TextDecoder('utf-8');
  const tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: true }, CALLBACKS);
  for (let i = 0; i < xml.length; i += CHUNK) {
    tokenizer.write(decoder.decode(xml.subarray(i, Math.min(xml.length, i + CHUNK)), { stream: true }));
  }
  const rest = decoder.decode();
  if (rest) tokenizer.write(rest);
  tokenizer.end();
  return performance.now() - t0;
}

function download(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url} answered ${res.statusCode}`));
        return;
      }
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', reject);
    }).on('error', reject);
  });
}

export interface TokenizerPassResult {
  ms: number;
  bytes: number;
}

/** Downloads each sitemap, inflates it, and times the bare tokenizer over it; one sitemap in memory at a time. */
export async function tokenizerPass(urls: string[]): Promise<TokenizerPassResult> {
  let ms = 0;
  let bytes = 0;
  // Warm-up on the first sitemap, as the ingest's parser is warm after its first few thousand entries.
  if (urls.length > 0) tokenizeMs(gunzipSync(await download(urls[0]!)).subarray(0, 2 * 1024 * 1024));
  for (const url of urls) {
    const xml = gunzipSync(await download(url));
    bytes += xml.length;
    ms += tokenizeMs(xml);
  }
  return { ms, bytes };
}

export interface ParsePassResult {
  ms: number;
  urls: number;
}

/**
 * The ceiling of the ingest: the sitemap parser alone over the same sitemaps (gzip bytes in hand,
 * inflating included), in the parse worker as the ingest runs it (or on this thread with
 * `onMain`), its batches taken in and dropped. What the ingest adds is the frontier, the journal,
 * the store and the audit on the engine's thread; where the parser alone is slower than 0.6 of the
 * tokenizer pass, no work on that thread can bring the ingest there.
 */
export async function parsePass(urls: string[], onMain: boolean): Promise<ParsePassResult> {
  const stream = onMain ? streamSitemap : streamSitemapInWorker;
  const read = async (url: string, gz: Buffer): Promise<number> => {
    async function* body() {
      for (let i = 0; i < gz.length; i += INFLATE_CHUNK) yield gz.subarray(i, i + INFLATE_CHUNK);
    }
    let n = 0;
    for await (const batch of stream(body(), { url, batchSize: 256 })) n += batch.length;
    return n;
  };
  if (urls.length > 0) await read(urls[0]!, await download(urls[0]!)); // warm-up, as for the tokenizer
  let ms = 0;
  let count = 0;
  for (const url of urls) {
    const gz = await download(url);
    const t0 = performance.now();
    count += await read(url, gz);
    ms += performance.now() - t0;
  }
  return { ms, urls: count };
}
