/** hasPrefix is String.prototype.startsWith (with a position), for every string and position. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasPrefix } from '../../electron/engine/frontier/prefix.js';

test('hasPrefix answers as startsWith does, at every position', () => {
  const strings = ['', 'a', 'ab', 'abc', 'https://shop.example/a/b?c', 'https://shop.example/', 'ü✓😀', '😀'];
  let checked = 0;
  for (const s of strings) {
    for (const p of strings.concat(strings.map((x) => x.slice(0, 3)), strings.map((x) => x.slice(1)))) {
      for (let at = 0; at <= s.length + 1; at++) {
        assert.equal(hasPrefix(s, p, at), s.startsWith(p, at), `${JSON.stringify(s)} ${JSON.stringify(p)} at ${at}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 1000);
});
