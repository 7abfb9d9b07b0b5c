/**
 * The IPC binding: the one `handle` wrapper on the contract's channel. It refuses any sender that is
 * not the top frame of one of our windows showing our own page, then hands over to the shared dispatch.
 */
import { IPC_CALL, IPC_EVENT, TransportErrorCode, fail, type EventName, type Result } from '../../shared/contract.js';
import type { Dispatch } from '../renderer-host/dispatch.js';

/** The parts of a WebFrameMain the sender check reads. */
export interface FrameLike {
  readonly url: string;
  readonly parent: unknown;
}

/** The parts of an IpcMainInvokeEvent the sender check reads. */
export interface InvokeEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: FrameLike | null;
}

/** The parts of a window the binding needs: its contents' id, main frame and a way to send. */
export interface WindowLike {
  isDestroyed(): boolean;
  readonly webContents: {
    readonly id: number;
    readonly mainFrame: FrameLike;
    isDestroyed(): boolean;
    send(channel: string, ...args: unknown[]): void;
  };
}

/** The parts of ipcMain the binding uses. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface IpcBindingOptions {
  ipcMain: IpcMainLike;
  dispatch: Dispatch;
  /** Our windows, as of now. */
  windows: () => WindowLike[];
  /** True for a URL of our own app (app://spinneret/…). */
  isAppUrl: (url: string) => boolean;
}

/** True when the message comes from the top frame of one of our windows, showing our page. */
export function isTrustedSender(event: InvokeEventLike, windows: WindowLike[], isAppUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent) return false;
  const owner = windows.find((w) => !w.isDestroyed() && w.webContents.id === event.sender.id);
  if (!owner || owner.webContents.mainFrame !== frame) return false;
  return isAppUrl(frame.url);
}

/** Registers the handler on the contract's channel; returns a function that removes it. */
export function bindIpc(options: IpcBindingOptions): () => void {
  options.ipcMain.handle(IPC_CALL, async (event, message): Promise<Result<unknown>> => {
    if (!isTrustedSender(event, options.windows(), options.isAppUrl)) {
      return fail(TransportErrorCode.FORBIDDEN_SENDER, 'This frame may not use the Spinneret API.');
    }
    const { method, args } = (message ?? {}) as { method?: unknown; args?: unknown };
    return options.dispatch(method, args);
  });
  return () => options.ipcMain.removeHandler(IPC_CALL);
}

/** Sends one contract event to every live window. */
export function broadcast(windows: WindowLike[], event: EventName, payload: unknown): void {
  for (const w of windows) {
    if (!w.isDestroyed() && !w.webContents.isDestroyed()) w.webContents.send(IPC_EVENT, { event, payload });
  }
}
