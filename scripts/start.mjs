#!/usr/bin/env node
// `npm start`: builds, then launches Electron on the built app. Where the Electron binary is missing
// (ELECTRON_SKIP_BINARY_DOWNLOAD, offline install) it says so and how to fix it, and exits 1.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from './electron-binary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const skipBuild = args.includes('--no-build');
const passThrough = args.filter((a) => a !== '--no-build');

const electron = findElectronBinary();
if (electron.error) {
  console.error(`Cannot start Spinneret.\n${electron.error}`);
  process.exit(1);
}
if (!skipBuild) {
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('./build.mjs', import.meta.url)), '--dev'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const child = spawn(electron.path, [root, ...passThrough], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (error) => {
  console.error(`Cannot start Spinneret: could not run ${electron.path}: ${error.message}`);
  process.exit(1);
});
