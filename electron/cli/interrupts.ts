/**
 * Ctrl-C in a terminal, as the CLI and browser mode take it: the first press pauses (requests in
 * flight finish, progress is saved), a second one quits at once.
 *
 * One press often reaches the process more than once, and a dependency hooks it:
 * - conf writes its file through atomically, whose when-exit hooks SIGINT and SIGTERM at import, runs
 *   its cleanup on the first one and sends the signal again to the process: the pause was counted as
 *   a second press and the process exited 130, or died of the repeated signal once no listener was
 *   left. takeSignals() removes such hooks (when-exit's 'exit' hook still runs its cleanup at exit).
 * - npm and tsx pass the terminal's signal on to their child, which the terminal signalled already
 *   (the whole foreground process group gets it): signals closer together than SAME_PRESS_MS are one
 *   press. A person pressing twice on purpose takes longer than that.
 */

/** Signals within this many ms of the last counted press are the same press. */
export const SAME_PRESS_MS = 300;

/**
 * Removes the listeners dependencies attached to these signals (it runs before any of ours), so what
 * a press does is only what the entry point says.
 */
export function takeSignals(signals: readonly NodeJS.Signals[]): void {
  for (const sig of signals) {
    for (const listener of process.listeners(sig)) process.removeListener(sig, listener as (...args: unknown[]) => void);
  }
}

/**
 * Calls `onPress(n, signal)` for the nth distinct press of any of these signals (n = 1, 2, …);
 * returns a function that stops listening.
 */
export function onPresses(
  signals: readonly NodeJS.Signals[],
  onPress: (n: number, signal: NodeJS.Signals) => void,
  now: () => number = () => performance.now(),
): () => void {
  let presses = 0;
  let last = -Infinity;
  const listener = (signal: NodeJS.Signals) => {
    const t = now();
    if (t - last < SAME_PRESS_MS) return;
    last = t;
    onPress(++presses, signal);
  };
  for (const sig of signals) process.on(sig, listener);
  return () => {
    for (const sig of signals) process.off(sig, listener);
  };
}
