/**
 * Child process of the benchmark: opens a new CrawlService on the state folder of the paused ingest
 * crawl, resumes it (the parent times the first request the resumed crawl sends to the site), lets
 * it finish, then exports every row as CSV to a counting sink.
 * Messages to the parent: opening, resumed, finished, csv, then done (or error).
 */
import { Writable } from 'node:stream';
import { createCrawlService } from '../electron/service/index.js';
import { startProfile } from './profiler.js';

export interface ReopenConfig {
  stateDir: string;
  crawlId: string;
  /** Folder for CPU profiles of the reopen and the export; null: none. */
  profile: string | null;
}

export type ReopenMessage =
  | { type: 'opening'; at: number }
  | { type: 'resumed'; at: number; rssMB: number; discovered: number }
  | { type: 'finished'; at: number; discovered: number; status: string }
  | { type: 'csv'; rows: number; bytes: number; ms: number }
  | { type: 'done'; rssMB: number }
  | { type: 'error'; message: string };

function tell(m: ReopenMessage): void {
  process.send?.(m);
}

async function main(cfg: ReopenConfig): Promise<void> {
  const stopReopenProfile = await startProfile(cfg.profile, 'reopen');
  tell({ type: 'opening', at: Date.now() });
  const service = createCrawlService({ stateDir: cfg.stateDir });
  const finished = new Promise<string>((resolve) => {
    service.on('finished', (s) => s.id === cfg.crawlId && resolve(s.status));
    service.on('failed', (s) => s.id === cfg.crawlId && resolve(`failed: ${s.error?.code ?? ''} ${s.error?.message ?? ''}`));
  });
  const resumed = await service.resume(cfg.crawlId);
  await stopReopenProfile();
  tell({ type: 'resumed', at: Date.now(), rssMB: process.memoryUsage.rss() / 1e6, discovered: resumed.counters.discovered });

  const status = await finished;
  const done = service.get(cfg.crawlId);
  tell({ type: 'finished', at: Date.now(), discovered: done.counters.discovered, status });

  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      bytes += chunk.length;
      cb();
    },
  });
  const stopCsvProfile = await startProfile(cfg.profile, 'csv-export');
  const t0 = performance.now();
  const { rows } = await service.exportCsv(cfg.crawlId, sink);
  const ms = performance.now() - t0;
  await stopCsvProfile();
  tell({ type: 'csv', rows, bytes, ms });
  await service.close();
  tell({ type: 'done', rssMB: process.memoryUsage.rss() / 1e6 });
}

process.once('message', (cfg: ReopenConfig) => {
  main(cfg).then(
    () => process.disconnect(),
    (err) => {
      tell({ type: 'error', message: (err as Error)?.stack ?? String(err) });
      process.disconnect();
    },
  );
});
