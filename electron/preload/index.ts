/**
 * Preload (sandboxed, bundled to one CJS file): exposes `window.spinneret` through contextBridge.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createPreloadApi } from './api.js';

contextBridge.exposeInMainWorld('spinneret', createPreloadApi(ipcRenderer));
