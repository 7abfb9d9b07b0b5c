/**
 * Quitting pauses and checkpoints running crawls first: `before-quit` is held until the service has
 * closed, then the quit goes ahead. The next launch shows those crawls paused.
 */

/** The parts of Electron's `app` this module uses. */
export interface QuitApp {
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

/** Holds the first quit until `close()` settles (errors are reported, never block the quit). */
export function closeBeforeQuit(app: QuitApp, close: () => Promise<void>): void {
  let state: 'open' | 'closing' | 'closed' = 'open';
  app.on('before-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    close()
      .catch((error: unknown) => console.error('[spinneret] could not checkpoint every crawl before quitting:', error))
      .finally(() => {
        state = 'closed';
        app.quit();
      });
  });
}
