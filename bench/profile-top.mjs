#!/usr/bin/env node
// Summarises a V8 .cpuprofile: the functions with the most self time, and the most total time.
//   node bench/profile-top.mjs FILE.cpuprofile [count=30]
import { readFileSync } from 'node:fs';

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('Usage: node bench/profile-top.mjs FILE.cpuprofile [count]');
  process.exit(1);
}
const count = Number(countArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per node from the samples and their deltas.
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};

const self = new Map();
const incl = new Map();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  self.set(label(n), (self.get(label(n)) ?? 0) + us);
  // Inclusive: every distinct function on the stack gets the sample once.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    incl.set(l, (incl.get(l) ?? 0) + us);
  }
}

const show = (title, m) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [l, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${l}`);
  }
};
show('Self time', self);
show('Total time', incl);
