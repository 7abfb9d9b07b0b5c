/** The installed electron package's version, or null. */
export function electronVersion(): string | null;
/** How to get the binary, in words a person can follow. */
export function installHint(): string;
/** `{ path }` of an existing Electron executable, or `{ error }` explaining what is missing. */
export function findElectronBinary(): { path: string; error?: undefined } | { error: string; path?: undefined };
