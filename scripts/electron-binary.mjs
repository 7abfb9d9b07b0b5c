// Finds the Electron binary the way node_modules/electron/index.js does, WITHOUT its fallback of
// downloading it: a missing binary is reported with how to fix it, never fetched behind your back.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The installed electron package's version, or null. */
export function electronVersion() {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** How to get the binary, in words a person can follow. */
export function installHint() {
  const v = electronVersion();
  return [
    'The Electron binary is not installed (npm ran with ELECTRON_SKIP_BINARY_DOWNLOAD, or offline).',
    'To fix it, with network access and ELECTRON_SKIP_BINARY_DOWNLOAD unset, run one of:',
    "  npm rebuild electron                 (re-runs electron's install step)",
    `  node node_modules/electron/install.js${v ? `  (downloads Electron ${v})` : ''}`,
    'Or point ELECTRON_OVERRIDE_DIST_PATH at an unpacked Electron of the same version.',
    'Browser mode needs no Electron: npm run serve',
  ].join('\n');
}

/** `{ path }` of an existing Electron executable, or `{ error }` explaining what is missing. */
export function findElectronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  if (!existsSync(join(pkg, 'package.json'))) return { error: 'The electron package is not installed: run npm install.' };
  const pathFile = join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const p = join(override, rel || (process.platform === 'win32' ? 'electron.exe' : 'electron'));
    return existsSync(p) ? { path: p } : { error: `ELECTRON_OVERRIDE_DIST_PATH is set but ${p} does not exist.` };
  }
  if (!rel) return { error: `node_modules/electron/path.txt is missing.\n${installHint()}` };
  const p = join(pkg, 'dist', rel);
  return existsSync(p) ? { path: p } : { error: `${p} does not exist.\n${installHint()}` };
}
