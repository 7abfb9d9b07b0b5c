/**
 * The page's API over Electron IPC, built from an ipcRenderer-like object so it can be tested
 * without Electron. Only the contract's methods and `on` reach the page: never ipcRenderer itself,
 * nor the IpcRendererEvent that carries `sender`.
 */
import {
  IPC_CALL,
  IPC_EVENT,
  TransportErrorCode,
  createApiClient,
  fail,
  isEventName,
  type EventName,
  type Result,
  type SpinneretApi,
} from '../../shared/contract.js';

/** The part of Electron's ipcRenderer the preload uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** Builds `window.spinneret` on top of ipcRenderer: one invoke channel, one event channel. */
export function createPreloadApi(ipc: IpcRendererLike): SpinneretApi {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  ipc.on(IPC_EVENT, (_event, message) => {
    const { event, payload } = (message ?? {}) as { event?: unknown; payload?: unknown };
    if (!isEventName(event)) return;
    for (const cb of listeners.get(event) ?? []) {
      try {
        cb(payload);
      } catch (error) {
        console.error(`[spinneret] a listener for "${event}" threw:`, error);
      }
    }
  });
  return createApiClient(
    async (method, args) => {
      try {
        return (await ipc.invoke(IPC_CALL, { method, args })) as Result<unknown>;
      } catch (error) {
        // invoke rejects only when main has no handler or the message could not be cloned.
        return fail(TransportErrorCode.INTERNAL, `IPC failed for ${method}: ${(error as Error).message}`);
      }
    },
    (event, cb) => {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(cb);
      return () => {
        set.delete(cb);
      };
    },
  );
}
