#!/usr/bin/env node
// `npm run bench [-- --urls N …]`: compiles the benchmark (bench/run.ts, its site server and its
// reopen process, with everything they import) with esbuild into a temp folder, as the app's own
// build bundles them, then runs it as plain JavaScript: tsx would add ~90 MB to the RSS measured.
// Options go to bench/run.ts (see bench/args.ts); `--profile DIR` writes per-phase CPU profiles and a
// heap snapshot at N URLs (summarise a profile with `node bench/profile-top.mjs FILE`). BENCH_NODE_FLAGS adds
// Node flags to the measured process (e.g. BENCH_NODE_FLAGS=--trace-gc; NODE_OPTIONS refuses most V8 flags).
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);

const out = mkdtempSync(join(tmpdir(), 'spinneret-bench-build-'));
try {
  await build({
    absWorkingDir: root,
    entryPoints: {
      run: 'bench/run.ts',
      'site-server': 'bench/site-server.ts',
      reopen: 'bench/reopen.ts',
      // loaded by the engine from beside run.mjs and reopen.mjs (worker-stream.ts)
      'parse-worker': 'electron/engine/sitemap/worker/parse-worker.ts',
    },
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    keepNames: true,
    logLevel: 'warning',
    // Bundled CommonJS dependencies may `require` Node built-ins: give the ESM output a real `require`.
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module';\nconst require = __benchCreateRequire(import.meta.url);" },
  });
} catch {
  rmSync(out, { recursive: true, force: true });
  process.stderr.write('Compiling the benchmark failed (see above).\n');
  process.exit(1);
}

const child = spawn(
  process.execPath,
  [...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []), '--expose-gc', join(out, 'run.mjs'), ...args],
  { stdio: 'inherit' },
);
const forward = (sig) => () => child.kill(sig);
process.on('SIGINT', forward('SIGINT'));
process.on('SIGTERM', forward('SIGTERM'));
// With --profile the compiled files stay, so profile positions can be looked up in them.
const keepBuild = args.some((a) => a === '--profile' || a.startsWith('--profile='));
if (keepBuild) process.stderr.write(`compiled benchmark kept in ${out}\n`);
child.on('exit', (code, signal) => {
  if (!keepBuild) rmSync(out, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
