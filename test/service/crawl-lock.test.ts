/**
 * The crawl lock (electron/service/catalog/crawl-lock.ts): one writer per crawl; a lock whose owner is gone
 * (dead pid, a pid reused by another process, a reboot) is taken over; a live one is refused with
 * CRAWL_LOCKED naming its pid; the lock goes at release and at process exit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCK_FILE, acquireCrawlLock, lockHolder, processes, type LockOwner } from '../../electron/service/catalog/crawl-lock.js';
import { ServiceError } from '../../electron/service/index.js';
import { tempDir } from './helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const crawl = { id: 'c1', name: 'Shop' };
const locked = (pid?: number) => (e: unknown) =>
  e instanceof ServiceError &&
  e.code === 'CRAWL_LOCKED' &&
  /crawl c1 \("Shop"\) is open in/.test(e.message) &&
  (pid === undefined || e.message.includes(`(pid ${pid}`));

function writeLock(dir: string, o: Partial<LockOwner>): void {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), started: null, boot: null, at: Date.now(), token: 'someone-else', ...o };
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(owner));
}

/** A pid that was alive a moment ago and is not any more. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

test('one lock at a time: a second acquire is refused until the first is released', () => {
  const dir = tempDir();
  const a = acquireCrawlLock(dir, crawl);
  const file = path.join(dir, LOCK_FILE);
  const inFile = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
  assert.equal(inFile.pid, process.pid);
  assert.equal(inFile.host, os.hostname());
  if (process.platform === 'linux') assert.match(String(inFile.started), /^\d+$/, 'the start time, from /proc');
  assert.throws(() => acquireCrawlLock(dir, crawl), locked(process.pid));
  assert.equal(lockHolder(dir)?.token, a.owner.token);
  a.release();
  a.release();
  assert.equal(fs.existsSync(file), false);
  assert.equal(lockHolder(dir), null);
  const b = acquireCrawlLock(dir, crawl);
  b.release();
  assert.deepEqual(fs.readdirSync(dir), [], 'no temporary files left');
});

test('a lock of a dead process is taken over', () => {
  const dir = tempDir();
  const pid = deadPid();
  writeLock(dir, { pid, started: '1' });
  assert.equal(lockHolder(dir), null);
  const l = acquireCrawlLock(dir, crawl);
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid, process.pid);
  l.release();
});

test(
  'a lock of a live process is refused with its pid; the same pid started at another time is a reused pid, taken over',
  { skip: process.platform !== 'linux' && 'process start times are read from /proc (Linux)' },
  async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const pid = child.pid!;
      const started = processes.startTime(pid);
      assert.ok(started);
      writeLock(dir, { pid, started, boot: processes.bootId() });
      assert.throws(() => acquireCrawlLock(dir, crawl), locked(pid));
      assert.equal(lockHolder(dir)?.pid, pid);
      // The same pid, but the lock says it started at another time: another process has that pid now.
      writeLock(dir, { pid, started: String(Number(started) - 100), boot: processes.bootId() });
      assert.equal(lockHolder(dir), null);
      acquireCrawlLock(dir, crawl).release();
      // Written before the last reboot: stale whatever its pid.
      writeLock(dir, { pid, started, boot: 'another-boot' });
      acquireCrawlLock(dir, crawl).release();
    } finally {
      child.kill('SIGKILL');
    }
  },
);

test("a lock with this process's pid that no service here holds is a killed process's (containers reuse pids)", () => {
  const dir = tempDir();
  writeLock(dir, { pid: process.pid, started: processes.startTime(process.pid) });
  acquireCrawlLock(dir, crawl).release();
});

test('a lock from another host is never taken over; it says how to clear it', () => {
  const dir = tempDir();
  writeLock(dir, { pid: deadPid(), host: 'other-machine.example' });
  assert.throws(
    () => acquireCrawlLock(dir, crawl),
    (e: unknown) => locked()(e) && /on other-machine\.example/.test((e as Error).message) && (e as Error).message.includes(path.join(dir, LOCK_FILE)),
  );
});

test('an unreadable lock file is being written when young, stale when old', () => {
  const dir = tempDir();
  const file = path.join(dir, LOCK_FILE);
  fs.writeFileSync(file, '');
  assert.throws(() => acquireCrawlLock(dir, crawl), locked());
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(file, old, old);
  acquireCrawlLock(dir, crawl).release();
});

test('a process that exits releases its locks; one killed leaves a lock the next process takes over', () => {
  const dir = tempDir();
  const script = (then: string) =>
    `import { acquireCrawlLock } from ${JSON.stringify(path.join(root, 'electron/service/catalog/crawl-lock.ts'))};` +
    `acquireCrawlLock(${JSON.stringify(dir)}, { id: 'c1', name: 'Shop' }); ${then}`;
  const exited = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script('process.exit(3)')], { cwd: root, encoding: 'utf8' });
  assert.equal(exited.status, 3, exited.stderr);
  assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false, 'released at exit');
  const killed = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script("process.kill(process.pid, 'SIGKILL')")], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), true, 'a kill leaves it');
  assert.equal(lockHolder(dir), null, 'and it is stale');
  acquireCrawlLock(dir, crawl).release();
});
