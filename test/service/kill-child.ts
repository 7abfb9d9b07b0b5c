/**
 * The crawl process the SIGKILL test kills: runs one crawl of the local test site through
 * CrawlService and reports on stdout, one JSON line each: created, progress, checkpoint, finished.
 *
 *   node --import tsx test/service/kill-child.ts <stateDir> start <startUrl>
 *   node --import tsx test/service/kill-child.ts <stateDir> resume <crawlId>
 */
import { createCrawlService } from '../../electron/service/index.js';

const [stateDir, mode, arg] = process.argv.slice(2);
if (!stateDir || (mode !== 'start' && mode !== 'resume') || !arg) {
  process.stderr.write('usage: kill-child.ts <stateDir> start <startUrl> | resume <crawlId>\n');
  process.exit(2);
}

const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

const service = createCrawlService({
  stateDir,
  // Checkpoints copied to the catalog often, so the test can kill right after one.
  checkpointIntervalMs: 150,
  onCheckpoint: (id, position) => say({ type: 'checkpoint', id, position }),
});
service.on('progress', (e) => say({ type: 'progress', id: e.crawlId, status: e.status, counters: e.counters }));
const done = new Promise<string>((resolve) => {
  service.on('finished', (s) => resolve(s.status));
  service.on('failed', (s) => resolve(`failed ${s.error?.code}: ${s.error?.message}`));
});

let id: string;
if (mode === 'start') {
  id = service.create({
    settings: { startUrl: arg, concurrency: 4, perHostConcurrency: 4, userAgent: 'SpinneretKillTest/1.0', timeoutMs: 5000, retries: 1 },
  }).id;
  say({ type: 'created', id });
  await service.start(id);
} else {
  id = arg;
  await service.resume(id);
}
const status = await done;
await service.close();
say({ type: 'finished', id, status });
