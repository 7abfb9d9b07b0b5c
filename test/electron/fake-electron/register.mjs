// node --import ./register.mjs dist/electron/main.js : runs the built main against the fake Electron.
import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
