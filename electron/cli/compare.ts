/**
 * `npm run crawl -- compare OLD NEW [--out diff.csv] [--json]`: what changed between two crawls, as a
 * readable summary (URLs, fields, sitemaps, findings worse and better) or the CompareSummary as JSON;
 * --out writes the changed URLs as CSV (before/after columns). formatCompare is also what `recrawl`
 * prints once its comparison is ready.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { CompareField, CompareSitemap, CompareSitemapSide, CompareSummary } from '../../shared/model.js';
import type { CrawlService } from '../service/types.js';

export interface CompareCommand {
  oldId: string;
  newId: string;
  out?: string;
  json: boolean;
}

const FIELD_LABELS: Record<CompareField, string> = {
  state: 'state',
  status: 'status',
  redirectTo: 'redirect target',
  indexability: 'indexability',
  canonical: 'canonical',
  title: 'title',
  metaRobots: 'meta robots',
  metaDescription: 'meta description',
  h1: 'H1',
  lastmod: 'lastmod',
  inSitemaps: 'sitemaps listing it',
  hreflang: 'hreflang',
  content: 'content (main text)',
};

/** Sitemaps listed by name at most (the JSON and the window have all of them). */
const MAX_SITEMAP_LINES = 20;

/** Runs the compare command; resolves to the exit code (0: compared). */
export async function runCompare(service: CrawlService, cmd: CompareCommand, stdout: NodeJS.WritableStream): Promise<number> {
  const summary = await service.compare(cmd.oldId, cmd.newId);
  if (cmd.out) {
    const file = createWriteStream(cmd.out);
    let rows: number;
    try {
      ({ rows } = await service.exportCompare(cmd.oldId, cmd.newId, file));
      if (!file.writableFinished) await once(file, 'finish');
    } catch (err) {
      file.destroy();
      throw err;
    }
    if (!cmd.json) stdout.write(`Wrote ${rows} changed URLs to ${cmd.out}.\n`);
  }
  stdout.write((cmd.json ? JSON.stringify(summary, null, 2) : formatCompare(summary)) + '\n');
  return 0;
}

const n = (x: number) => x.toLocaleString('en-US');
const signed = (x: number) => (x > 0 ? `+${n(x)}` : x < 0 ? `-${n(-x)}` : '0');

/** The comparison for people: a few lines per part, changes only. */
export function formatCompare(s: CompareSummary): string {
  const u = s.urls;
  const lines = [
    `Compared crawl ${s.oldId} ("${s.oldName}") with ${s.newId} ("${s.newName}")`,
    '',
    `URLs: ${n(u.before)} -> ${n(u.after)}: ${n(u.added)} added, ${n(u.removed)} removed, ${n(u.changed)} changed, ${n(u.unchanged)} unchanged`,
  ];
  const sources = s.bySource.filter((x) => x.added || x.removed);
  if (sources.length) lines.push(`  by source: ${sources.map((x) => `${x.source} +${n(x.added)} -${n(x.removed)}`).join(', ')}`);
  const fields = s.fields.filter((f) => f.changed > 0);
  if (fields.length) {
    lines.push('', 'Changed URLs by field:');
    const w = Math.max(...fields.map((f) => FIELD_LABELS[f.field].length));
    for (const f of fields) lines.push(`  ${FIELD_LABELS[f.field].padEnd(w)}  ${n(f.changed)}`);
  }
  const c = s.sitemapCounts;
  lines.push('', `Sitemaps: ${n(c.added)} added, ${n(c.removed)} removed, ${n(c.changed)} changed, ${n(c.unchanged)} unchanged`);
  const moved = s.sitemaps.filter((x) => x.change !== 'unchanged');
  for (const x of moved.slice(0, MAX_SITEMAP_LINES)) lines.push(`  ${sitemapLine(x)}`);
  if (moved.length > MAX_SITEMAP_LINES) lines.push(`  … and ${n(moved.length - MAX_SITEMAP_LINES)} more (--json lists them all)`);
  const measured = s.findings.filter((f) => f.measured);
  const worse = measured.filter((f) => f.after > f.before);
  const better = measured.filter((f) => f.after < f.before);
  const shifted = measured.filter((f) => f.after === f.before && (f.entered || f.left));
  const findingLine = (f: CompareSummary['findings'][number]) =>
    `  ${f.severity.padEnd(8)} ${f.code}  ${n(f.before)} -> ${n(f.after)} (${n(f.entered)} entered, ${n(f.left)} left)`;
  lines.push('', worse.length ? `Findings worse (count rose): ${worse.length}` : 'Findings worse (count rose): none');
  for (const f of worse) lines.push(findingLine(f));
  if (better.length) lines.push('', `Findings better (count fell): ${better.length}`, ...better.map(findingLine));
  if (shifted.length) lines.push('', `Findings with other members, same count: ${shifted.length}`, ...shifted.map(findingLine));
  const unmeasured = s.findings.length - measured.length;
  if (unmeasured) lines.push('', `${unmeasured} findings not compared: one of the crawls could not measure them.`);
  lines.push('', `The changed URLs with before/after columns: npm run crawl -- compare ${s.oldId} ${s.newId} --out diff.csv`);
  return lines.join('\n');
}

function sitemapLine(x: CompareSitemap): string {
  const urls = x.urlsAdded || x.urlsRemoved ? `; URLs +${n(x.urlsAdded)} -${n(x.urlsRemoved)}` : '';
  if (x.change === 'added') return `+ ${x.url} (${describe(x.after!)}${urls})`;
  if (x.change === 'removed') return `- ${x.url} (${describe(x.before!)}${urls})`;
  const a = x.before!;
  const b = x.after!;
  const diffs: string[] = [];
  if (a.type !== b.type) diffs.push(`type ${a.type} -> ${b.type}`);
  if (a.state !== b.state) diffs.push(`state ${a.state} -> ${b.state}`);
  if (a.httpStatus !== b.httpStatus) diffs.push(`status ${a.httpStatus ?? 'none'} -> ${b.httpStatus ?? 'none'}`);
  if (a.urlCount !== b.urlCount) diffs.push(`entries ${n(a.urlCount)} -> ${n(b.urlCount)} (${signed(b.urlCount - a.urlCount)})`);
  if (a.bytes !== b.bytes) diffs.push(`bytes ${n(a.bytes)} -> ${n(b.bytes)}`);
  if (a.problems !== b.problems) diffs.push(`problems ${n(a.problems)} -> ${n(b.problems)}`);
  return `~ ${x.url} (${diffs.join(', ') || 'same document'}${urls})`;
}

function describe(x: CompareSitemapSide): string {
  const status = x.httpStatus !== undefined ? `HTTP ${x.httpStatus}, ` : '';
  return `${x.type}, ${status}${n(x.urlCount)} entries${x.problems ? `, ${n(x.problems)} problems` : ''}`;
}
