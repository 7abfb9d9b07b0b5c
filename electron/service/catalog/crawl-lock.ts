/**
 * One process at a time writes a crawl: a lock file in the crawl's folder names its owner (pid,
 * host, the process's start time where it can be read, a random token). Two writers would
 * interleave the journal's batches and leave nothing readable, so a second process is refused
 * (ServiceError CRAWL_LOCKED); reading needs no lock. A lock whose owner is gone — the pid is not
 * alive, or it is alive but started at another time (a pid reused), or the machine was rebooted —
 * is taken over. Locks are released when the run ends, when the service closes and at exit.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../errors.js';

export const LOCK_FILE = 'crawl.lock';

/** What the lock file holds. */
export interface LockOwner {
  pid: number;
  host: string;
  /** The process's start time as the OS gives it (Linux: /proc/<pid>/stat, in clock ticks since boot). */
  started: string | null;
  /** Linux boot id: a lock from before a reboot is stale whatever its pid. */
  boot: string | null;
  /** When the lock was taken (ms since 1970), for people reading the file. */
  at: number;
  token: string;
}

/** A lock this process holds. */
export interface CrawlLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** Removes the lock file (when it is still ours). Idempotent. */
  release(): void;
}

/** Lock files held by this process: path → token. Another CrawlService in this process is another owner. */
const held = new Map<string, string>();
let exitHook = false;

/** Whether a process of this host is alive, per the OS. Exposed for tests. */
export const processes = {
  alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
    }
  },
  /** The start time of a process (Linux), or null where it cannot be read. */
  startTime(pid: number): string | null {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Field 2 (the command) is in parentheses and may hold spaces; starttime is field 22.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19] ?? null;
    } catch {
      return null;
    }
  },
  bootId(): string | null {
    try {
      return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      return null;
    }
  },
};

/**
 * Takes the lock of the crawl in `dir`, taking over a stale one. Throws ServiceError CRAWL_LOCKED
 * when another live process (or another service in this one) holds it.
 */
export function acquireCrawlLock(dir: string, crawl: { id: string; name: string }): CrawlLock {
  const file = path.join(dir, LOCK_FILE);
  if (held.has(file)) throw lockedError(crawl, selfOwner(''), file);
  const owner = selfOwner(randomBytes(12).toString('hex'));
  for (let attempt = 0; attempt < 20; attempt++) {
    if (create(file, owner)) return register(file, owner);
    const found = readOwner(file);
    if (found === 'absent') continue; // released meanwhile
    if (found !== 'unreadable' && !isStale(found)) throw lockedError(crawl, found, file);
    if (found === 'unreadable' && !oldEnough(file)) throw lockedError(crawl, null, file);
    takeOver(file, found);
  }
  throw new ServiceError(
    'CRAWL_LOCKED',
    `Crawl ${crawl.id} ("${crawl.name}") could not be locked: its lock file ${file} keeps changing. Another process is opening it; try again.`,
  );
}

/**
 * Who writes the crawl in `dir` now: a live owner (this process included, when one of its services
 * holds it), or null when nobody does (no lock, or a stale one).
 */
export function lockHolder(dir: string): LockOwner | null {
  const file = path.join(dir, LOCK_FILE);
  const found = readOwner(file);
  if (found === 'absent') return null;
  if (found === 'unreadable') return oldEnough(file) ? null : { pid: 0, host: os.hostname(), started: null, boot: null, at: 0, token: '' };
  if (held.get(file) === found.token) return found;
  return isStale(found) ? null : found;
}

/** The error a caller gets for a crawl `owner` has open (its lock file `file`). */
export function lockedError(crawl: { id: string; name: string }, owner: LockOwner | null, file = ''): ServiceError {
  const here = owner !== null && owner.pid === process.pid && owner.host === os.hostname();
  const who = here
    ? `this process (pid ${process.pid})`
    : owner && owner.pid > 0
      ? `another process (pid ${owner.pid}${owner.host !== os.hostname() ? ` on ${owner.host}` : ''})`
      : 'another process';
  const what = here
    ? 'Close the other window or service using this state folder.'
    : owner && owner.host !== os.hostname()
      ? `Pause it there. If that process is gone, delete ${file || LOCK_FILE + ' in the crawl folder'}.`
      : 'Pause it there (Ctrl-C in its terminal, or Pause in its window), then try again; reading and export work meanwhile.';
  return new ServiceError('CRAWL_LOCKED', `crawl ${crawl.id} ("${crawl.name}") is open in ${who}. ${what}`, { cause: owner ?? undefined });
}

/** Whether the owner recorded in a lock is gone (only decidable for this host). */
export function isStale(o: LockOwner): boolean {
  if (o.host !== os.hostname()) return false;
  const boot = processes.bootId();
  if (boot && o.boot && boot !== o.boot) return true;
  if (o.pid === process.pid) {
    // Not in `held`: no service of this process holds it. A pid reused from a killed process
    // (containers start every run as the same pid).
    return true;
  }
  if (!Number.isInteger(o.pid) || o.pid <= 0 || !processes.alive(o.pid)) return true;
  const started = processes.startTime(o.pid);
  return started !== null && o.started !== null && started !== o.started;
}

function selfOwner(token: string): LockOwner {
  return { pid: process.pid, host: os.hostname(), started: processes.startTime(process.pid), boot: processes.bootId(), at: Date.now(), token };
}

/** Creates the lock file with its content in one step (a link of a complete temporary file). */
function create(file: string, owner: LockOwner): boolean {
  const tmp = `${file}.${owner.token}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(owner) + '\n');
  } catch (err) {
    throw lockIoError(file, err);
  }
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw lockIoError(file, err);
    // No hard links on this file system (FAT): exclusive create, then the content.
    try {
      fs.writeFileSync(file, JSON.stringify(owner) + '\n', { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw lockIoError(file, e);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function register(file: string, owner: LockOwner): CrawlLock {
  held.set(file, owner.token);
  if (!exitHook) {
    exitHook = true;
    // A process that exits (normally, process.exit, a second Ctrl-C) leaves no lock behind.
    process.on('exit', () => {
      for (const [f, token] of held) removeIfOurs(f, token);
      held.clear();
    });
  }
  let released = false;
  return {
    path: file,
    owner,
    release() {
      if (released) return;
      released = true;
      if (held.get(file) === owner.token) held.delete(file);
      removeIfOurs(file, owner.token);
    },
  };
}

function removeIfOurs(file: string, token: string): void {
  const found = readOwner(file);
  if (found !== 'absent' && found !== 'unreadable' && found.token === token) fs.rmSync(file, { force: true });
}

/** Moves a stale lock aside and deletes it — unless it changed meanwhile (someone else took over first). */
function takeOver(file: string, stale: LockOwner | 'unreadable'): void {
  const aside = `${file}.stale-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw lockIoError(file, err);
  }
  const moved = readOwner(aside);
  const same = stale === 'unreadable' ? moved === 'unreadable' : moved !== 'absent' && moved !== 'unreadable' && moved.token === stale.token;
  if (!same) {
    // A fresh lock replaced the stale one between our read and the rename: put it back.
    try {
      fs.linkSync(aside, file);
    } catch {
      // Another took its place again; the next attempt reads whoever holds it now.
    }
  }
  fs.rmSync(aside, { force: true });
}

function readOwner(file: string): LockOwner | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.token !== 'string') return 'unreadable';
    return {
      pid: o.pid,
      host: o.host,
      started: typeof o.started === 'string' ? o.started : null,
      boot: typeof o.boot === 'string' ? o.boot : null,
      at: Number(o.at) || 0,
      token: o.token,
    };
  } catch {
    return 'unreadable';
  }
}

/** An unreadable lock file may be one being written (no hard links): stale only once it is a few seconds old. */
function oldEnough(file: string): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs > 5000;
  } catch {
    return true;
  }
}

function lockIoError(file: string, err: unknown): ServiceError {
  return new ServiceError('JOURNAL_WRITE_FAILED', `Could not write the crawl's lock file ${file}: ${(err as Error).message}; check the folder's permissions.`, {
    cause: err,
  });
}
