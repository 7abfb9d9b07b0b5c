/**
 * Picks the transport: window.spinneret in Electron (preload), or the browser-mode WebSocket at
 * ws://<host>/ws?token=… otherwise.
 */
import { createWebSocketApi, webSocketUrlFor, type WebSocketLike } from '../../../shared/contract.js';
import type { SpinneretApi } from './types.js';

export interface Connection {
  api: SpinneretApi;
  /** 'electron' | 'browser': Export behaves differently (save dialog vs download). */
  transport: 'electron' | 'browser';
  /** Registers a callback for a lost connection (browser mode only). */
  onLost(cb: (reason: string) => void): void;
}

declare global {
  interface Window {
    spinneret?: SpinneretApi;
  }
}

/** Connects to whoever owns the crawls. */
export async function connect(): Promise<Connection> {
  if (window.spinneret) {
    return { api: window.spinneret, transport: 'electron', onLost: () => {} };
  }
  if (!new URLSearchParams(location.search).get('token')) {
    throw new Error('This page needs the address Spinneret printed when it started (it carries a ?token=…).');
  }
  const socket = new WebSocket(webSocketUrlFor(location.href));
  const lost: ((reason: string) => void)[] = [];
  // The DOM's handler types are narrower than WebSocketLike's `unknown` events; the shapes match.
  const api = createWebSocketApi(socket as unknown as WebSocketLike);
  let opened = false;
  socket.addEventListener('open', () => {
    opened = true;
  });
  socket.addEventListener('close', (ev) => {
    const reason = opened
      ? 'The connection to Spinneret closed. Start it again, then reload this page.'
      : `Could not connect to Spinneret${ev.code === 1008 || ev.code === 4001 ? ': the token in the address was refused' : ''}. Check that it is running and reload.`;
    for (const cb of lost) cb(reason);
  });
  return { api, transport: 'browser', onLost: (cb) => lost.push(cb) };
}
