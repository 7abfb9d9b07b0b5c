/**
 * CPU time per thread of this process, from /proc/self/task (Linux; elsewhere none): the ingest is bound by
 * the CPU of all its threads together (docs/performance.md, "Where the time and memory go"), so the benchmark reports where
 * it goes: the engine's thread, the parse worker's, and the rest (V8's compiler and garbage-collection
 * helpers, libuv's pool that inflates and writes).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** Per thread id: user and system CPU, in ms. */
export type ThreadTimes = Map<string, { user: number; system: number }>;

/** A reading of every thread's CPU so far, or null where /proc is not there. */
export function threadTimes(): ThreadTimes | null {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out: ThreadTimes = new Map();
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces), from the state on: utime and stime are 14th and 15th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { user: (Number(f[11]) * 1000) / TICKS_PER_S, system: (Number(f[12]) * 1000) / TICKS_PER_S });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

export interface ThreadCpu {
  /** The engine's thread (the process's main thread), and how much of it was in the kernel. */
  engineMs: number;
  engineSystemMs: number;
  /** The busiest other thread: the parse worker, when sitemaps are parsed in it. */
  busiestOtherMs: number;
  /** All the other threads together. */
  restMs: number;
}

/** The CPU spent between two readings (threads started in between count from 0), or null without both. */
export function threadCpu(before: ThreadTimes | null, after: ThreadTimes | null, mainTid = String(process.pid)): ThreadCpu | null {
  if (!before || !after) return null;
  let engineMs = 0;
  let engineSystemMs = 0;
  const others: number[] = [];
  for (const [tid, t] of after) {
    const b = before.get(tid) ?? { user: 0, system: 0 };
    const ms = t.user - b.user + (t.system - b.system);
    if (tid === mainTid) {
      engineMs = ms;
      engineSystemMs = t.system - b.system;
    } else others.push(ms);
  }
  others.sort((a, b) => b - a);
  const busiestOtherMs = others[0] ?? 0;
  return { engineMs, engineSystemMs, busiestOtherMs, restMs: others.slice(1).reduce((n, ms) => n + ms, 0) };
}
