/**
 * Micro-benchmark behind the choice of XML tokenizer for the sitemap parser.
 * Run: npx tsx bench/sitemap-parser.ts [urls=50000] [rounds=5]
 *
 * Generates a urlset in memory (lastmod, changefreq, priority, some hreflang alternates and
 * images) and times, on the same 64 KiB chunks:
 *   (a) sax's raw parser, (b) sax's stream wrapper, (c) htmlparser2's Parser in xmlMode,
 *   (d) createSitemapParser end to end (decoding, validation, scope checks, entry objects),
 *   (e) streamSitemap over the plain body and (f) over a gzipped body (inflate + batching).
 * Baselines (a)–(c) only capture each <loc>'s text, the least a sitemap reader must do.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import sax from 'sax';
import { Parser } from 'htmlparser2';
import { createSitemapParser, streamSitemap } from '../electron/engine/index.js';

const URLS = Number(process.argv[2] ?? 50_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const CHUNK = 64 * 1024;
const SITEMAP_URL = 'https://www.example.com/sitemap.xml';

function generateUrlset(n: number): string {
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"',
    ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n',
  ];
  const freqs = ['daily', 'weekly', 'monthly'];
  for (let i = 0; i < n; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    let s =
      `  <url>\n    <loc>https://www.example.com/products/item-${i}?ref=list&amp;page=${i % 7}</loc>\n` +
      `    <lastmod>2024-03-${day}T10:${String(i % 60).padStart(2, '0')}:00+00:00</lastmod>\n` +
      `    <changefreq>${freqs[i % 3]}</changefreq>\n    <priority>0.${i % 10}</priority>\n`;
    if (i % 5 === 0) {
      s +=
        `    <xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/products/item-${i}"/>\n` +
        `    <xhtml:link rel="alternate" hreflang="fr" href="https://www.example.com/fr/products/item-${i}"/>\n`;
    }
    if (i % 10 === 0) {
      s += `    <image:image>\n      <image:loc>https://www.example.com/img/${i}.jpg</image:loc>\n      <image:title>Item ${i}</image:title>\n    </image:image>\n`;
    }
    parts.push(s + '  </url>\n');
  }
  parts.push('</urlset>\n');
  return parts.join('');
}

const xml = generateUrlset(URLS);
const bytes = Buffer.from(xml, 'utf8');
const gz = gzipSync(bytes);
const byteChunks: Buffer[] = [];
for (let i = 0; i < bytes.length; i += CHUNK) byteChunks.push(bytes.subarray(i, i + CHUNK));
const gzChunks: Buffer[] = [];
for (let i = 0; i < gz.length; i += CHUNK) gzChunks.push(gz.subarray(i, i + CHUNK));
const textChunks = byteChunks.map((c) => c.toString('utf8')); // ASCII only: chunk edges split no character

function check(name: string, n: number): void {
  if (n !== URLS) throw new Error(`${name} counted ${n} URLs, expected ${URLS}`);
}

function saxRaw(): number {
  let n = 0;
  let inLoc = false;
  let loc = '';
  const p = sax.parser(true, {});
  p.onopentag = (tag) => {
    if (tag.name === 'loc') {
      inLoc = true;
      loc = '';
    }
  };
  p.ontext = (t) => {
    if (inLoc) loc += t;
  };
  p.onclosetag = (name) => {
    if (name === 'loc') inLoc = false;
    else if (name === 'url' && loc !== '') n++;
  };
  for (const c of textChunks) p.write(c);
  p.close();
  return n;
}

async function saxStream(): Promise<number> {
  let n = 0;
  let inLoc = false;
  let loc = '';
  const s = sax.createStream(true, {});
  s.on('opentag', (tag: sax.Tag) => {
    if (tag.name === 'loc') {
      inLoc = true;
      loc = '';
    }
  });
  s.on('text', (t: string) => {
    if (inLoc) loc += t;
  });
  s.on('closetag', (name: string) => {
    if (name === 'loc') inLoc = false;
    else if (name === 'url' && loc !== '') n++;
  });
  await new Promise<void>((resolve, reject) => {
    s.on('end', resolve);
    s.on('error', reject);
    Readable.from(byteChunks).pipe(s);
  });
  return n;
}

function htmlparser2Parser(): number {
  let n = 0;
  let inLoc = false;
  let loc = '';
  const p = new Parser(
    {
      onopentagname(name) {
        if (name === 'loc') {
          inLoc = true;
          loc = '';
        }
      },
      ontext(t) {
        if (inLoc) loc += t;
      },
      onclosetag(name) {
        if (name === 'loc') inLoc = false;
        else if (name === 'url' && loc !== '') n++;
      },
    },
    { xmlMode: true },
  );
  for (const c of textChunks) p.write(c);
  p.end();
  return n;
}

function sitemapParser(): number {
  let n = 0;
  const p = createSitemapParser({
    url: SITEMAP_URL,
    onItem(item) {
      if (item.kind === 'url') n++;
      else if (item.kind === 'problem') throw new Error(`unexpected problem ${item.problem.code}: ${item.problem.message}`);
    },
  });
  for (const c of byteChunks) p.write(c);
  p.end();
  return n;
}

async function streamed(chunks: Buffer[]): Promise<number> {
  async function* body(): AsyncGenerator<Buffer> {
    yield* chunks;
  }
  let n = 0;
  const it = streamSitemap(body(), { url: SITEMAP_URL });
  for (;;) {
    const r = await it.next();
    if (r.done) {
      if (r.value.fatal) throw new Error(r.value.fatal.message);
      break;
    }
    for (const item of r.value) if (item.kind === 'url') n++;
  }
  return n;
}

async function time(name: string, run: () => number | Promise<number>): Promise<void> {
  check(name, await run()); // warm-up
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    check(name, await run());
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)]!;
  const rate = Math.round(URLS / (median / 1000));
  console.log(`${name.padEnd(44)} ${median.toFixed(1).padStart(8)} ms  ${rate.toLocaleString('en-US').padStart(11)} URLs/s`);
}

console.log(
  `${URLS.toLocaleString('en-US')} URLs, ${(bytes.length / 1e6).toFixed(1)} MB XML (${(gz.length / 1e6).toFixed(1)} MB gzipped), ` +
    `${CHUNK / 1024} KiB chunks, median of ${ROUNDS} rounds, Node ${process.version}`,
);
await time('(a) sax raw parser (strict)', saxRaw);
await time('(b) sax stream (strict)', saxStream);
await time('(c) htmlparser2 Parser, xmlMode', htmlparser2Parser);
await time('(d) createSitemapParser, end to end', sitemapParser);
await time('(e) streamSitemap, plain body', () => streamed(byteChunks));
await time('(f) streamSitemap, gzipped body', () => streamed(gzChunks));
