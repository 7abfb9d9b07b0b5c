#!/usr/bin/env node
// Builds everything into dist/: Electron main (ESM), the preload (ONE sandbox-safe CJS file), the
// headless CLI and browser mode (ESM, Node), then the renderer with vite (its own config).
//   node scripts/build.mjs [--no-renderer] [--only main,preload,cli,web,renderer] [--dev] [--outdir DIR]
// --outdir puts the Electron/Node bundles in DIR/electron instead of dist/electron (tests build
// privately so they never race another build of dist/).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const dev = argv.includes('--dev');
const onlyArg = argv.find((a) => a.startsWith('--only'));
const onlyValue = onlyArg?.includes('=') ? onlyArg.split('=')[1] : onlyArg ? argv[argv.indexOf(onlyArg) + 1] : null;
const only = onlyValue ? new Set(onlyValue.split(',')) : null;
const outIndex = argv.indexOf('--outdir');
const outDir = outIndex >= 0 ? argv[outIndex + 1] : 'dist';
const out = (file) => join(outDir, 'electron', file);
const wanted = (name) =>
  name === 'worker'
    ? ['main', 'cli', 'web'].some((n) => wanted(n)) // whatever runs the engine needs its parse worker
    : only
      ? only.has(name)
      : !(name === 'renderer' && argv.includes('--no-renderer'));

// Bundled CJS dependencies may `require` Node built-ins; give ESM output a real `require`.
const esmRequireBanner = {
  js: "import { createRequire as __spinneretCreateRequire } from 'node:module';\nconst require = __spinneretCreateRequire(import.meta.url);",
};

const common = {
  absWorkingDir: root,
  bundle: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  minify: !dev,
  keepNames: true,
  define: { 'process.env.NODE_ENV': JSON.stringify(dev ? 'development' : 'production') },
};

const targets = {
  // Electron 45: Node 22, Chromium 140.
  main: {
    ...common,
    entryPoints: ['electron/main/index.ts'],
    outfile: out('main.js'),
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['electron'],
    banner: esmRequireBanner,
  },
  // A sandboxed preload can require only 'electron' and a few polyfills: bundle everything else.
  preload: {
    ...common,
    entryPoints: ['electron/preload/index.ts'],
    outfile: out('preload.cjs'),
    platform: 'browser',
    format: 'cjs',
    target: 'chrome140',
    external: ['electron'],
  },
  cli: {
    ...common,
    entryPoints: ['electron/cli/cli.ts'],
    outfile: out('cli.js'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: esmRequireBanner,
  },
  // The sitemap parse worker, loaded by main, cli and web from beside them (worker-stream.ts).
  worker: {
    ...common,
    entryPoints: ['electron/engine/sitemap/worker/parse-worker.ts'],
    outfile: out('parse-worker.js'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: esmRequireBanner,
  },
  web: {
    ...common,
    entryPoints: ['electron/web/index.ts'],
    outfile: out('web.js'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: esmRequireBanner,
  },
};

/** Builds one esbuild target; returns false (after saying why) when it fails. */
async function buildTarget(name) {
  const started = Date.now();
  try {
    const result = await build({ ...targets[name], metafile: true });
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + (o.bytes ?? 0), 0);
    console.log(`  ${name.padEnd(8)} ${targets[name].outfile}  ${(bytes / 1024).toFixed(0)} KiB incl. map  ${Date.now() - started} ms`);
    return true;
  } catch (error) {
    console.error(`  ${name}: build failed (${error.errors?.length ?? 1} error(s) above).`);
    return false;
  }
}

function buildRenderer() {
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const config = join(root, 'renderer', 'vite.config.ts');
  if (!existsSync(config)) {
    console.error('  renderer: renderer/vite.config.ts is missing.');
    return false;
  }
  const started = Date.now();
  const res = spawnSync(process.execPath, [vite, 'build', '--config', config, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    console.error('  renderer: vite build failed (see above).');
    return false;
  }
  console.log(`  renderer dist/renderer/  ${Date.now() - started} ms`);
  return true;
}

console.log(`Building Spinneret${dev ? ' (dev)' : ''}…`);
let ok = true;
const names = Object.keys(targets).filter(wanted);
const results = await Promise.all(names.map(buildTarget));
ok = results.every(Boolean);
if (wanted('renderer')) ok = buildRenderer() && ok;
if (!ok) {
  console.error('Build failed.');
  process.exit(1);
}
