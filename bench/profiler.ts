/**
 * CPU profiles and heap snapshots of one benchmark phase (`--profile DIR`), through the inspector,
 * so a profile holds only the phase it names. Read them with bench/profile-top.mjs or Chrome DevTools.
 */
import { Session } from 'node:inspector';
import fs from 'node:fs';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T)));
  });
}

/**
 * Starts a CPU profile and a sampling allocation profile when `dir` is set; the returned function
 * writes `<dir>/<name>.cpuprofile` and `<dir>/<name>.heapprofile`. The allocation profile counts
 * every sampled allocation of the phase, collected ones included: what feeds the garbage collector,
 * by allocation site. Both slow the phase down: its figures are not comparable with a plain run.
 */
export async function startProfile(dir: string | null, name: string): Promise<() => Promise<void>> {
  if (!dir) return async () => {};
  fs.mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 200 });
  await post(session, 'HeapProfiler.enable');
  await post(session, 'HeapProfiler.startSampling', {
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await post(session, 'Profiler.start');
  return async () => {
    // The heap first: stopping the CPU profiler allocates (and may collect) plenty.
    const heap = await post<{ profile: unknown }>(session, 'HeapProfiler.stopSampling');
    const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
    fs.writeFileSync(path.join(dir, `${name}.heapprofile`), JSON.stringify(heap.profile));
    fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** Writes `<dir>/<name>.heapsnapshot` when `dir` is set. */
export function heapSnapshot(dir: string | null, name: string): void {
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  writeHeapSnapshot(path.join(dir, `${name}.heapsnapshot`));
}
