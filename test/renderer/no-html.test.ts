// Nothing crawled is ever shown as HTML: titles, URLs and messages reach the page as React text only.
// A static guard over the renderer's sources, so that a future view cannot slip an HTML sink in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWebUrl } from '../../renderer/src/logic/format.js';

const SRC = fileURLToPath(new URL('../../renderer/src/', import.meta.url));
const SINKS =
  /dangerouslySetInnerHTML|\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|\beval\(|new Function\(/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(tsx?|css)$/.test(name) ? [p] : [];
  });
}

test('no renderer source uses an HTML sink', () => {
  const all = files(SRC);
  assert.ok(all.length > 20, `found the sources (${all.length})`);
  for (const f of all) {
    const lines = readFileSync(f, 'utf8').split('\n');
    lines.forEach((line, i) => assert.doesNotMatch(line, SINKS, `${f}:${i + 1}`));
  }
});

test('links to crawled URLs are only made for http(s)', () => {
  assert.equal(isWebUrl('https://a.com/x'), true);
  assert.equal(isWebUrl('HTTP://a.com/'), true);
  for (const bad of [
    'javascript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<b>x</b>',
    'vbscript:x',
    'file:///etc/passwd',
    '//a.com/',
    'https:// x',
    '',
    undefined,
  ]) {
    assert.equal(isWebUrl(bad), false, String(bad));
  }
  // Every anchor in the views goes through UrlLink (which checks the scheme), never a raw <a href>.
  for (const f of files(join(SRC, 'views'))) assert.doesNotMatch(readFileSync(f, 'utf8'), /<a\s/, f);
});
