/**
 * A crawl whose catalog entry and meta.json are both gone keeps its journal (it is listed, and can be
 * exported), but its settings are not known: resuming it is refused with SETTINGS_LOST and what to
 * do, instead of starting a crawl of "" with the defaults.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli, type CliIo } from '../../electron/cli/cli.js';
import { createCrawlService, ServiceError } from '../../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, settled, tempDir } from './helpers.js';

const ORIGIN = 'http://shop.test';
const plan: FakePlan = { origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 50, 2), fetchPages: true };
const open = (dir: string) => createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, plan) });

function io(): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { stdout, stderr, onInterrupt: () => () => {}, out: () => out, err: () => err };
}

test('a crawl that lost its catalog entry and meta.json is refused a resume with SETTINGS_LOST; export still works', async () => {
  const dir = tempDir();
  const s = open(dir);
  let paused = false;
  const id = s.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  const off = s.on('progress', (e) => {
    if (!paused && e.counters.discovered > 10) {
      paused = true;
      void s.pause(id);
    }
  });
  const end = settled(s, id).catch(() => undefined);
  await s.start(id);
  for (let i = 0; i < 500 && s.get(id).status !== 'paused' && s.get(id).status !== 'finished'; i++) await new Promise((r) => setTimeout(r, 10));
  off();
  void end;
  await s.close();
  fs.rmSync(path.join(dir, 'catalog.json'));
  fs.rmSync(path.join(dir, 'crawls', id, 'meta.json'));

  const s2 = open(dir);
  const listed = s2.list().find((c) => c.id === id)!;
  assert.equal(listed.error?.code, 'META_MISSING');
  await assert.rejects(
    s2.resume(id),
    (e: unknown) => e instanceof ServiceError && e.code === 'SETTINGS_LOST' && /settings were lost/.test(e.message) && /Export what it has/.test(e.message),
  );
  await assert.rejects(s2.start(id), (e: unknown) => e instanceof ServiceError && (e.code === 'SETTINGS_LOST' || e.code === 'BAD_STATE'));
  assert.equal(s2.get(id).status, 'paused', 'nothing ran');
  assert.ok(allRows(s2, id).length > 0, 'its data can still be read');
  await s2.close();

  const t = io();
  assert.equal(await runCli(['resume', id, '--state-dir', dir], t), 1);
  assert.match(t.err(), /SETTINGS_LOST: Crawl .* cannot run: its settings were lost/);
  assert.doesNotMatch(t.err(), /INVALID_URL/);
  const ex = io();
  assert.equal(await runCli(['export', id, '--out', path.join(dir, 'x.csv'), '--state-dir', dir], ex), 0, ex.err());
});
