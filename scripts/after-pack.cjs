// electron-builder afterPack hook: flips Electron's fuses in the packed binary, before signing.
// CommonJS because electron-builder loads hooks with require().
const path = require('node:path');
const { flipFuses, FuseVersion, FuseV1Options } = require('@electron/fuses');

/** The fuse settings: no Node escape hatches, app code only from a validated app.asar. */
const FUSES = {
  version: FuseVersion.V1,
  strictlyRequireAllFuses: true,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  // We serve the page from app://, never file://.
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
};

/** The packed Electron executable (or .app bundle) for this platform. */
function electronBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') {
    return path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
  }
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
  return path.join(appOutDir, packager.executableName);
}

module.exports = async function afterPack(context) {
  const binary = electronBinary(context);
  const arm64Mac = context.electronPlatformName === 'darwin' && context.arch === 3; // builder-util Arch.arm64
  const flipped = await flipFuses(binary, { ...FUSES, resetAdHocDarwinSignature: arm64Mac });
  console.log(`  • fuses set on ${path.basename(binary)} (${flipped} changed)`);
};
module.exports.FUSES = FUSES;
