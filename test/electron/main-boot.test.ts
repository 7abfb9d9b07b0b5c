/**
 * Boots the BUILT main process (main.js as packaged, built to a temp dir) in plain Node against a fake
 * 'electron' module (test/electron/fake-electron): checks the wiring of electron/main/index.ts with
 * the real CrawlService — the window's options, the IPC handler, app://, the menu, quit.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const register = fileURLToPath(new URL('./fake-electron/register.mjs', import.meta.url));
/** A private build (never racing another build of dist/): <out>/electron/main.js, <out>/renderer/. */
let out = '';

interface Report {
  calls: string[];
  windows: { webPreferences: Record<string, unknown>; show: boolean; loaded?: string }[];
  ipc: Record<string, { ok: boolean; value?: unknown; error?: { code: string; message: string } }>;
  protocol: { privileges?: Record<string, boolean>; page?: { status: number; csp: string | null } };
  menu: string[];
  events: { channel: string; event: string; payload: unknown }[];
  permissionRequest?: string;
  permissionCheck?: string;
  csp?: boolean;
}

/** Runs the built main with the fake Electron; returns its report. */
async function boot(env: Record<string, string> = {}): Promise<Report> {
  const home = await mkdtemp(join(tmpdir(), 'spinneret-boot-'));
  try {
    const res = spawnSync(process.execPath, ['--import', register, join(out, 'electron', 'main.js')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, FAKE_HOME: home, SPINNERET_STATE_DIR: join(home, 'state'), ...env },
    });
    const line = res.stdout.split('\n').find((l) => l.startsWith('FAKE_ELECTRON_REPORT '));
    assert.ok(line, `main printed no report (exit ${res.status}):\n${res.stdout}\n${res.stderr}`);
    return JSON.parse(line.slice('FAKE_ELECTRON_REPORT '.length)) as Report;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('built main process (fake Electron, real service)', () => {
  before(async () => {
    out = await mkdtemp(join(tmpdir(), 'spinneret-main-build-'));
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--only', 'main', '--outdir', out], { cwd: root, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    await mkdir(join(out, 'renderer'));
    await writeFile(join(out, 'renderer', 'index.html'), '<!doctype html><title>Spinneret</title>');
  });
  after(() => rm(out, { recursive: true, force: true }));

  it('boots: secure window, app:// with CSP, IPC with sender check, menu, checkpoint on quit', async () => {
    const r = await boot();
    assert.ok(r.calls.includes('app.enableSandbox'));
    assert.ok(r.calls.includes('registerSchemesAsPrivileged(app)'));
    assert.deepEqual(r.protocol.privileges, { standard: true, secure: true, supportFetchAPI: true });
    assert.ok(r.calls.includes('protocol.handle(app)'));
    assert.ok(r.calls.includes('ipcMain.handle(spinneret:call)'));
    // The catalog is electron-store in the app (it registers its renderer data channel).
    assert.ok(r.calls.includes('ipcMain.on(electron-store-get-data)'));
    assert.equal(r.permissionRequest, 'function');
    assert.equal(r.permissionCheck, 'function');
    assert.equal(r.csp, true);

    assert.equal(r.windows.length, 1);
    const w = r.windows[0];
    assert.equal(w.loaded, 'app://spinneret/index.html');
    assert.equal(w.webPreferences.contextIsolation, true);
    assert.equal(w.webPreferences.sandbox, true);
    assert.equal(w.webPreferences.nodeIntegration, false);
    assert.equal(w.webPreferences.preload, join(out, 'electron', 'preload.cjs'));

    assert.deepEqual(r.ipc.ours, { ok: true, value: [] });
    assert.equal(r.ipc.created.ok, true);
    assert.equal(r.ipc.foreign.ok, false);
    assert.equal(r.ipc.foreign.error?.code, 'FORBIDDEN_SENDER');
    assert.equal(r.ipc.bad.error?.code, 'INVALID_ARGS');
    assert.equal(r.protocol.page?.status, 200, 'app:// serves the renderer beside main');
    assert.match(String(r.protocol.page?.csp), /default-src 'none'/);

    assert.deepEqual(r.menu, ['&File', '&Edit', '&View', 'windowMenu', 'help']);
    assert.ok(r.events.some((e) => e.channel === 'spinneret:event' && e.event === 'menuCommand'));

    // The first quit is held while the service checkpoints, then the app quits for real.
    const quits = r.calls.filter((c) => c.startsWith('before-quit'));
    assert.deepEqual(quits, ['before-quit:held', 'before-quit:passed']);
  });

  it('a second instance leaves at once: no window, no service', async () => {
    const r = await boot({ FAKE_LOCK: 'taken' });
    assert.deepEqual(r.windows, []);
    assert.ok(r.calls.includes('app.quit'));
    assert.ok(!r.calls.includes('ipcMain.handle(spinneret:call)'));
  });
});
