#!/usr/bin/env node
// Runs every *.test.ts under test/ with Node's own test runner (TypeScript through tsx).
// Node 20's --test takes no globs, so the files are listed here. Extra args filter by path.
// The TAP output streams through as it comes; the failures are repeated at the end, because a
// CI log is often read from its tail and one "not ok" among a thousand lines is easy to miss.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const files = walk(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('No test files matched.');
  process.exit(1);
}

// TAP, named: since Node 23 the default reporter is spec even into a pipe, and the repeat below reads TAP.
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=2', ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
  cwd: root,
});

// A failure is a "not ok" line and its YAML block (which ends with "..." at the block's indent).
// The enclosing "# Subtest:" names are kept so a nested failure reads with its suite.
const failures = [];
const subtests = []; // [indent, name] of the subtests open above the current line
let open = null; // the failure being collected, with the indent its block ends at
createInterface({ input: child.stdout }).on('line', (line) => {
  process.stdout.write(line + '\n');
  if (open) {
    open.lines.push(line);
    if (line.trimEnd() === `${open.indent}  ...`) open = null;
    return;
  }
  const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
  if (sub) {
    while (subtests.length && subtests[subtests.length - 1][0] >= sub[1].length) subtests.pop();
    subtests.push([sub[1].length, sub[2]]);
    return;
  }
  const bad = /^(\s*)not ok \d+ - /.exec(line);
  if (bad) {
    const path = subtests.filter(([indent]) => indent < bad[1].length).map(([, name]) => name);
    open = { indent: bad[1], lines: [...path.map((name) => `# in: ${name}`), line] };
    failures.push(open);
  }
});

child.on('close', (code, signal) => {
  // A suite fails when a test in it does: list the innermost failures only.
  const leaves = failures.filter((f) => !f.lines.some((l) => l.includes("failureType: 'subtestsFailed'")));
  if (leaves.length > 0) {
    process.stdout.write(`\n# ${leaves.length} failing test(s), repeated from above:\n`);
    for (const f of leaves) process.stdout.write(f.lines.join('\n') + '\n');
  }
  // Not process.exit(): stdout is a pipe, written asynchronously, and exiting at once would cut its tail.
  process.exitCode = code ?? (signal ? 1 : 0);
});
