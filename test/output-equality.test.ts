/**
 * The CLI's outputs for a crawl of the realistic site — the URL CSV, the audit as text, JSON and CSV,
 * one finding's URLs and the crawl list — equal the copies in test/fixtures/golden/expected, made by
 * the code before it was restructured (issue 21: behaviour does not change). A deliberate change of
 * an output rewrites the copies (see test/fixtures/golden/outputs.ts) in the same commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GOLDEN_FILES, goldenOutputs } from './fixtures/golden/outputs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('a crawl of the realistic site gives the same CSV, audit and list as the recorded copies', { timeout: 180_000 }, async () => {
  const outputs = await goldenOutputs(path.join(ROOT, 'electron/cli/cli.ts'));
  for (const name of GOLDEN_FILES) {
    const want = await readFile(path.join(ROOT, 'test/fixtures/golden/expected', name), 'utf8');
    assert.equal(outputs[name], want, `${name} differs from test/fixtures/golden/expected/${name}`);
  }
});
