/**
 * Where crawls live when nobody says otherwise: the app's own user-data folder, the same one
 * Electron's `app.getPath('userData')` gives for productName "Spinneret", so crawls started from the
 * CLI or browser mode show in the app and the other way round. Plain Node: no Electron here.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The product name Electron derives the user-data folder from (package.json "productName"). */
export const PRODUCT_NAME = 'Spinneret';

/** Environment variable that overrides the state dir everywhere (tests, portable installs). */
export const STATE_DIR_ENV = 'SPINNERET_STATE_DIR';

/** Electron's `appData` folder for this platform. */
export function appDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (platform === 'win32') return env.APPDATA || join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || join(home, '.config');
}

/** The default state dir: $SPINNERET_STATE_DIR, else `<appData>/Spinneret`. */
export function defaultStateDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const override = env[STATE_DIR_ENV];
  if (override) return override;
  return join(appDataDir(platform, env, home), PRODUCT_NAME);
}
