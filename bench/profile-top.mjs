#!/usr/bin/env node
// Summarises a V8 .cpuprofile (the functions with the most self time, and the most total time) or a
// .heapprofile (the functions that allocate most).
//   node bench/profile-top.mjs FILE.cpuprofile|FILE.heapprofile [count=30]
// When the profiled script is an esbuild bundle still on disk (`--profile` keeps it), self time is
// also summed per source module, from the `// path` comments esbuild puts at each module's start.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('Usage: node bench/profile-top.mjs FILE.cpuprofile [count]');
  process.exit(1);
}
const count = Number(countArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// A .heapprofile (sampling allocation profile): bytes allocated per function.
if (profile.head) {
  const bytes = new Map();
  let total = 0;
  const walk = (n) => {
    const f = n.callFrame;
    const l = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}` : ''}`.trim();
    total += n.selfSize;
    if (n.selfSize) bytes.set(l, (bytes.get(l) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(profile.head);
  console.log(`Bytes allocated (sampled), of ${(total / 1e6).toFixed(0)} MB`);
  for (const [l, b] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${(b / 1e6).toFixed(1).padStart(9)} MB ${((100 * b) / total).toFixed(1).padStart(5)}%  ${l}`);
  }
  process.exit(0);
}
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

// Self time per bundled module.
const modulesOf = new Map();
function moduleAt(url, line) {
  if (!url.startsWith('file://')) return url ? url.replace(/^node:/, 'node:') : '(native/VM)';
  let starts = modulesOf.get(url);
  if (!starts) {
    starts = [];
    const path = fileURLToPath(url);
    if (existsSync(path)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((l, i) => {
          const m = /^\/\/ ((?:node_modules|electron|bench|shared)\/\S+)$/.exec(l);
          if (m) starts.push([i, m[1]]);
        });
    }
    modulesOf.set(url, starts);
  }
  let name = url.replace(/^.*\//, '');
  for (const [at, m] of starts) if (at <= line) name = m;
  return name.replace(/^node_modules\/([^/]+)\/.*$/, 'node_modules/$1');
}
const perModule = new Map();
for (const [id, us] of selfUs) {
  const f = byId.get(id).callFrame;
  const m = f.url ? moduleAt(f.url, f.lineNumber) : f.functionName.startsWith('(') ? f.functionName : '(native/VM)';
  perModule.set(m, (perModule.get(m) ?? 0) + us);
}
show('Self time per module', perModule);
