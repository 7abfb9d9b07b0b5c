/**
 * The CLI's crawl status words: a crawl that Stop ended reads as a partial crawl in `list`, in the
 * summary printed when it ends, and in the audit's head line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCounters, type CrawlSummary } from '../shared/model.js';
import { formatSummary, formatTable, statusWord } from '../electron/cli/format.js';
import { formatFindings } from '../electron/cli/audit-format.js';

function crawl(over: Partial<CrawlSummary>): CrawlSummary {
  return {
    id: 'c1',
    name: 'Shop',
    startUrl: 'https://shop.test/',
    settings: { startUrl: 'https://shop.test/', sitemapUrls: [] } as unknown as CrawlSummary['settings'],
    status: 'finished',
    counters: emptyCounters(),
    createdAt: 0,
    updatedAt: 0,
    rate: 0,
    ...over,
  };
}

test('a crawl Stop ended says "finished (stopped)"; one that did its work, "finished"', () => {
  assert.equal(statusWord(crawl({})), 'finished');
  assert.equal(statusWord(crawl({ stopped: true })), 'finished (stopped)');
  assert.equal(statusWord(crawl({ status: 'paused' })), 'paused');
  assert.match(formatTable([crawl({ stopped: true })]), /^c1\s+finished \(stopped\)\s+https:\/\/shop\.test\//m);
  assert.match(formatTable([crawl({})]), /^c1\s+finished\s+https:/m);
  assert.match(formatSummary(crawl({ stopped: true })), /^Crawl c1: finished \(stopped\)$/m);
  assert.match(formatFindings(crawl({ stopped: true }), []), /^Audit of crawl c1 \(finished \(stopped\)\)/);
});
