/**
 * `npm run crawl -- recrawl ID [--changed-only] [--fail-on <codes|critical|warning>] [--json]`: crawls
 * crawl ID again (conditional requests; changed-only fetches only what is new, moved or failed), runs
 * it to its end (Ctrl-C pauses, as a crawl does), prints its comparison with ID, and exits with
 * EXIT_WORSE (3) when the chosen findings got worse, so a scheduled job can alert on it.
 */
import type { CompareSummary, CrawlSummary } from '../../shared/model.js';
import type { CrawlService } from '../service/types.js';
import { formatCompare } from './compare.js';

/** The exit code of a recrawl whose chosen findings got worse than in its base. */
export const EXIT_WORSE = 3;

/** Which findings count: every critical one (default), critical and warning ones, or these codes. */
export type FailOn = { severity: 'critical' | 'warning' } | { codes: string[] };

export interface RecrawlCommand {
  id: string;
  changedOnly: boolean;
  failOn: FailOn;
  json: boolean;
  quiet: boolean;
}

export interface RecrawlIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Runs the recrawl command. `follow` shows a started crawl's progress until it finishes, fails or is
 * paused (the CLI's own loop) and resolves to its exit code.
 */
export async function runRecrawl(
  service: CrawlService,
  cmd: RecrawlCommand,
  io: RecrawlIo,
  follow: (id: string, begin: () => Promise<CrawlSummary>) => Promise<number>,
): Promise<number> {
  const base = service.get(cmd.id);
  const started = await service.recrawl(cmd.id, { changedOnly: cmd.changedOnly });
  // Listened to at once: the event follows the finish by the time the comparison takes.
  const compared = new Promise<string[]>((resolve) => {
    const off = service.on('recrawlFinished', (e) => {
      if (e.crawl.id !== started.id) return;
      off();
      resolve(e.worse);
    });
  });
  if (!cmd.json) io.stdout.write(`Recrawl ${started.id} of crawl ${base.id} ("${base.name}")${cmd.changedOnly ? ', changed only' : ''}\n`);
  const code = await follow(started.id, async () => service.get(started.id));
  if (code !== 0 || service.get(started.id).status !== 'finished') return code;
  await compared;
  let summary: CompareSummary;
  try {
    summary = await service.compare(base.id, started.id);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    io.stderr.write(
      `spinneret: warning: the recrawl finished but could not be compared with ${base.id} (${e.code ?? 'ERROR'}: ${e.message ?? String(err)}).\n`,
    );
    return 0;
  }
  const worse = worseFindings(summary, cmd.failOn);
  if (cmd.json) io.stdout.write(JSON.stringify({ crawl: service.get(started.id), comparison: summary, worse }, null, 2) + '\n');
  else {
    io.stdout.write('\n' + formatCompare(summary) + '\n');
    io.stdout.write(
      worse.length
        ? `\nWorse than last time (${describeFailOn(cmd.failOn)}): ${worse.join(', ')}\n`
        : `\nNothing worse than last time (${describeFailOn(cmd.failOn)}).\n`,
    );
  }
  return worse.length ? EXIT_WORSE : 0;
}

/** The codes of the findings `failOn` chooses whose count rose (measured in both crawls). */
export function worseFindings(s: CompareSummary, failOn: FailOn): string[] {
  const chosen = (f: CompareSummary['findings'][number]) =>
    'codes' in failOn ? failOn.codes.includes(f.code) : f.severity === 'critical' || (failOn.severity === 'warning' && f.severity === 'warning');
  return s.findings.filter((f) => f.measured && f.after > f.before && chosen(f)).map((f) => f.code);
}

function describeFailOn(f: FailOn): string {
  if ('codes' in f) return f.codes.join(', ');
  return f.severity === 'critical' ? 'critical findings' : 'critical and warning findings';
}
