/**
 * Packaging and launch: electron-builder config validity, the fuses afterPack hook (on a fake
 * binary carrying Electron's fuse sentinel), icons, the bundled preload, and `npm start` without
 * the Electron binary.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { methodNames } from '../../shared/contract.js';
import { findElectronBinary } from '../../scripts/electron-binary.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

describe('electron-builder', () => {
  it('accepts the configuration, with every target the app ships', async () => {
    // In a child: electron-builder logs to stdout, which node:test reserves for its own protocol.
    const script = `
      const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
      const { DebugLogger } = require('builder-util');
      getConfig(process.cwd(), null, null)
        .then(async (c) => { await validateConfiguration(c, new DebugLogger(false)); process.stderr.write('CONFIG' + JSON.stringify(c)); })
        .catch((e) => { process.stderr.write('INVALID ' + e.message); process.exit(1); });`;
    const res = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    const config = JSON.parse(res.stderr.slice(res.stderr.indexOf('CONFIG') + 'CONFIG'.length));
    const targets = (t: unknown) => JSON.stringify(t);
    assert.match(targets(config.linux.target), /AppImage/);
    assert.match(targets(config.linux.target), /deb/);
    assert.match(targets(config.mac.target), /dmg/);
    assert.match(targets(config.win.target), /nsis/);
    assert.equal(config.asar, true);
    assert.equal(config.afterPack, 'scripts/after-pack.cjs');
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    assert.equal(pkg.main, 'dist/electron/main.js');
    const files = JSON.stringify(config.files);
    for (const f of [pkg.main, 'dist/electron/parse-worker.js', 'dist/electron/preload.cjs', 'dist/renderer/**/*'])
      assert.ok(files.includes(JSON.stringify(f)), `${f} is packed`);
  });

  it('afterPack sets the fuses: no RunAsNode, asar only, asar integrity, no NODE_OPTIONS or --inspect', async () => {
    const { SENTINEL, FuseState } = require('@electron/fuses/dist/constants.js');
    const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses');
    const afterPack = require('../../scripts/after-pack.cjs');
    const dir = await mkdtemp(join(tmpdir(), 'spinneret-fuses-'));
    try {
      // Electron's shipped defaults: RunAsNode on, cookies plain, NODE_OPTIONS on, inspect on, …
      const wire = Buffer.from('10110001', 'ascii');
      await writeFile(join(dir, 'spinneret'), Buffer.concat([Buffer.from('ELF…'), Buffer.from(SENTINEL), Buffer.from([1, 8]), wire, Buffer.from('…')]));
      const log = console.log;
      console.log = () => {};
      try {
        await afterPack({
          appOutDir: dir,
          electronPlatformName: 'linux',
          arch: 1,
          packager: { executableName: 'spinneret', appInfo: { productFilename: 'Spinneret' } },
        });
      } finally {
        console.log = log;
      }
      const fuses = await getCurrentFuseWire(join(dir, 'spinneret'));
      assert.equal(fuses[FuseV1Options.RunAsNode], FuseState.DISABLE);
      assert.equal(fuses[FuseV1Options.EnableCookieEncryption], FuseState.ENABLE);
      assert.equal(fuses[FuseV1Options.EnableNodeOptionsEnvironmentVariable], FuseState.DISABLE);
      assert.equal(fuses[FuseV1Options.EnableNodeCliInspectArguments], FuseState.DISABLE);
      assert.equal(fuses[FuseV1Options.EnableEmbeddedAsarIntegrityValidation], FuseState.ENABLE);
      assert.equal(fuses[FuseV1Options.OnlyLoadAppFromAsar], FuseState.ENABLE);
      assert.equal(fuses[FuseV1Options.GrantFileProtocolExtraPrivileges], FuseState.DISABLE);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('icons', () => {
  const pngSize = (b: Buffer) => [b.readUInt32BE(16), b.readUInt32BE(20)];

  it('has PNGs at every size, an ICO and an ICNS', async () => {
    for (const s of [16, 32, 48, 64, 128, 256, 512, 1024]) {
      const b = await readFile(join(root, 'build', 'icons', `${s}x${s}.png`));
      assert.equal(b.subarray(1, 4).toString('ascii'), 'PNG');
      assert.deepEqual(pngSize(b), [s, s]);
    }
    assert.deepEqual(pngSize(await readFile(join(root, 'build', 'icon.png'))), [1024, 1024]);
    const ico = await readFile(join(root, 'build', 'icon.ico'));
    assert.equal(ico.readUInt16LE(2), 1, 'ICO type');
    assert.ok(ico.readUInt16LE(4) >= 5, 'several sizes');
    const icns = await readFile(join(root, 'build', 'icon.icns'));
    assert.equal(icns.subarray(0, 4).toString('ascii'), 'icns');
    assert.equal(icns.readUInt32BE(4), icns.length);
  });
});

describe('preload bundle', () => {
  it('is one CJS file that exposes exactly the contract, and no ipcRenderer', async () => {
    const out = await mkdtemp(join(tmpdir(), 'spinneret-preload-'));
    const res = spawnSync(process.execPath, ['scripts/build.mjs', '--only', 'preload', '--outdir', out], { cwd: root, encoding: 'utf8' });
    const code = await readFile(join(out, 'electron', 'preload.cjs'), 'utf8').finally(() => rm(out, { recursive: true, force: true }));
    assert.equal(res.status, 0, res.stderr);
    const required: string[] = [];
    const exposed: Record<string, unknown> = {};
    const sent: unknown[][] = [];
    const ipcRenderer = {
      invoke: async (...args: unknown[]) => (sent.push(args), { ok: true, value: [] }),
      on: () => {},
    };
    const fakeRequire = (id: string) => {
      required.push(id);
      if (id !== 'electron') throw new Error(`a sandboxed preload cannot require ${id}`);
      return { contextBridge: { exposeInMainWorld: (k: string, v: unknown) => (exposed[k] = v) }, ipcRenderer };
    };
    const module = { exports: {} };
    vm.runInNewContext(code, { require: fakeRequire, module, exports: module.exports, console });
    assert.deepEqual(required, ['electron']);
    assert.deepEqual(Object.keys(exposed), ['spinneret']);
    // Objects from the vm's realm: compare as JSON.
    const plain = (v: unknown) => JSON.parse(JSON.stringify(v));
    const api = exposed.spinneret as Record<string, (...a: unknown[]) => Promise<unknown>>;
    assert.deepEqual(Object.keys(api).sort(), [...methodNames, 'on'].sort());
    assert.ok(!Object.values(api).includes(ipcRenderer as never));
    assert.deepEqual(plain(await api.listCrawls()), []);
    assert.deepEqual(plain(sent), [['spinneret:call', { method: 'listCrawls' }]]);
  });
});

describe('npm start', () => {
  it('without the Electron binary, says so and how to fix it, and exits 1 without a stack trace', (t) => {
    if (findElectronBinary().path) return t.skip('the Electron binary is installed here, so npm start would launch it');
    const res = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: root, encoding: 'utf8' });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /Electron binary is not installed/);
    assert.match(res.stderr, /npm rebuild electron|install\.js/);
    assert.doesNotMatch(res.stderr, /\n\s+at .+:\d+:\d+/, 'no stack trace');
  });
});
