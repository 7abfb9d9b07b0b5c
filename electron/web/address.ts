/**
 * Browser mode's address, kept in the state folder (`serve.json`, readable by its owner only): a
 * restart serves the same URL, so a page reloaded after it reconnects, and the window's column choices
 * (localStorage, kept per origin) stay. A file that is missing, unreadable or not of this shape is
 * ignored: a new token and a free port are chosen.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServeAddress {
  port: number;
  token: string;
}

const FILE = 'serve.json';
/** 32 random bytes, base64url: what startWebServer makes. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function readServeAddress(stateDir: string): ServeAddress | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(stateDir, FILE), 'utf8'));
  } catch {
    return null;
  }
  const a = raw as Partial<ServeAddress> | null;
  if (!a || typeof a.token !== 'string' || !TOKEN.test(a.token)) return null;
  if (!Number.isInteger(a.port) || a.port! < 1 || a.port! > 65535) return null;
  return { port: a.port!, token: a.token };
}

/** Saves the address; a failure only costs the next start its old URL, so it is reported, not thrown. */
export function writeServeAddress(stateDir: string, a: ServeAddress): string | null {
  const file = join(stateDir, FILE);
  try {
    writeFileSync(file, JSON.stringify(a) + '\n', { mode: 0o600 });
    chmodSync(file, 0o600); // an older file keeps its mode on rewrite
    return null;
  } catch (error) {
    return `could not save the address in ${file} (${(error as Error).message}); the next start gets a new one.`;
  }
}
