/**
 * The names CSV exports are saved under: what the file holds (every URL, one finding, another
 * filter; every link, or one URL's inlinks or outlinks), the day, a crawl name made safe, and -2,
 * -3… rather than an earlier export's name.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DownloadRegistry, exportContents, exportFileName, linksFileName, localDate } from '../../electron/renderer-host/downloads.js';

const DAY = new Date(2024, 4, 7, 23, 59); // 7 May 2024, late evening local time

describe('export file names', () => {
  it('say what the file holds: every URL, one finding, or another filter', () => {
    assert.equal(exportFileName('Shop', undefined, DAY), 'Shop-urls-2024-05-07.csv');
    assert.equal(exportFileName('Shop', {}, DAY), 'Shop-urls-2024-05-07.csv');
    assert.equal(exportFileName('Shop', { sort: { key: 'url', dir: 'desc' } }, DAY), 'Shop-urls-2024-05-07.csv', 'sorting keeps every URL');
    assert.equal(exportFileName('Shop', { finding: 'SITEMAP_URL_4XX' }, DAY), 'Shop-SITEMAP_URL_4XX-2024-05-07.csv');
    assert.equal(exportFileName('Shop', { finding: 'SITEMAP_URL_4XX', sort: { key: 'status', dir: 'asc' } }, DAY), 'Shop-SITEMAP_URL_4XX-2024-05-07.csv');
    assert.equal(
      exportFileName('Shop', { finding: 'SITEMAP_URL_4XX', sitemapId: 'http://a.test/s.xml' }, DAY),
      'Shop-filtered-2024-05-07.csv',
      'a finding within one sitemap is not the whole finding',
    );
    assert.equal(exportFileName('Shop', { statuses: [404] }, DAY), 'Shop-filtered-2024-05-07.csv');
    assert.equal(exportFileName('Shop', { search: 'blog' }, DAY), 'Shop-filtered-2024-05-07.csv');
    assert.equal(exportFileName('Shop', { noClickDepth: true }, DAY), 'Shop-filtered-2024-05-07.csv', 'the URLs without a click depth are part of them');
    assert.equal(exportFileName('Shop', { search: undefined }, DAY), 'Shop-urls-2024-05-07.csv', 'a key left undefined narrows nothing');
  });

  it("of links say which: every link, or one URL's inlinks or outlinks, never reusing a name", () => {
    assert.equal(linksFileName('Shop', {}, DAY), 'Shop-links-2024-05-07.csv');
    assert.equal(linksFileName('Shop', { urlId: 42 }, DAY), 'Shop-inlinks-42-2024-05-07.csv', 'inlinks unless told');
    assert.equal(linksFileName('Shop', { urlId: 42, direction: 'in' }, DAY), 'Shop-inlinks-42-2024-05-07.csv');
    assert.equal(linksFileName('Shop', { urlId: 0, direction: 'out' }, DAY), 'Shop-outlinks-0-2024-05-07.csv');
    assert.equal(linksFileName('../My shop', {}, DAY), 'My-shop-links-2024-05-07.csv');
    assert.equal(linksFileName('Shop', { finding: 'BROKEN_INTERNAL_LINK' }, DAY), 'Shop-BROKEN_INTERNAL_LINK-links-2024-05-07.csv');
    const used = new Set(['Shop-links-2024-05-07.csv', 'Shop-outlinks-3-2024-05-07.csv']);
    assert.equal(
      linksFileName('Shop', {}, DAY, (n) => used.has(n)),
      'Shop-links-2024-05-07-2.csv',
    );
    assert.equal(
      linksFileName('Shop', { urlId: 3, direction: 'out' }, DAY, (n) => used.has(n)),
      'Shop-outlinks-3-2024-05-07-2.csv',
    );
    assert.equal(
      linksFileName('Shop', { urlId: 3 }, DAY, (n) => used.has(n)),
      'Shop-inlinks-3-2024-05-07.csv',
    );
  });

  it('carry the local date as YYYY-MM-DD', () => {
    assert.equal(localDate(new Date(2025, 0, 3, 0, 0, 1)), '2025-01-03');
    assert.equal(localDate(new Date(1999, 11, 31, 23, 59, 59)), '1999-12-31');
  });

  it('make the crawl name and a finding code safe for a header and any file system', () => {
    assert.equal(exportFileName('My site / 2024', undefined, DAY), 'My-site-2024-urls-2024-05-07.csv');
    assert.equal(exportFileName('Café "Ünïcode"', undefined, DAY), 'Cafe-Unicode-urls-2024-05-07.csv');
    assert.equal(exportFileName('../../etc/passwd', undefined, DAY), 'etc-passwd-urls-2024-05-07.csv');
    assert.equal(exportFileName('  ', undefined, DAY), 'crawl-urls-2024-05-07.csv');
    assert.equal(exportFileName('日本', undefined, DAY), 'crawl-urls-2024-05-07.csv');
    assert.equal(exportFileName('x'.repeat(300), undefined, DAY), `${'x'.repeat(80)}-urls-2024-05-07.csv`);
    assert.equal(exportContents({ finding: 'A/B\r\n"C"' }), 'A-B-C');
    assert.equal(exportContents({ finding: '"' }), 'finding');
  });

  it('never take a name already in use: -2, -3…', () => {
    const used = new Set(['Shop-urls-2024-05-07.csv', 'Shop-urls-2024-05-07-2.csv']);
    assert.equal(
      exportFileName('Shop', undefined, DAY, (n) => used.has(n)),
      'Shop-urls-2024-05-07-3.csv',
    );
    assert.equal(
      exportFileName('Shop', { finding: 'X' }, DAY, (n) => used.has(n)),
      'Shop-X-2024-05-07.csv',
    );
  });

  it('browser mode: each download of a registry gets a name of its own', async () => {
    const reg = new DownloadRegistry();
    try {
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const name = exportFileName('Shop', undefined, DAY, (n) => reg.named(n));
        names.push(name);
        await reg.create(name, async (out) => void out.write('url\n'));
      }
      assert.deepEqual(names, ['Shop-urls-2024-05-07.csv', 'Shop-urls-2024-05-07-2.csv', 'Shop-urls-2024-05-07-3.csv']);
      // Two exports started together: the name is claimed as soon as the first starts writing.
      const first = exportFileName('Shop', { finding: 'X' }, DAY, (n) => reg.named(n));
      const writing = reg.create(first, async (out) => void (await new Promise((r) => setTimeout(r, 20)), out.write('url\n')));
      const second = exportFileName('Shop', { finding: 'X' }, DAY, (n) => reg.named(n));
      await writing;
      assert.deepEqual([first, second], ['Shop-X-2024-05-07.csv', 'Shop-X-2024-05-07-2.csv']);
    } finally {
      await reg.close();
    }
  });
});
