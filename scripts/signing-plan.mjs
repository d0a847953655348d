// What a release build signs and notarizes, from the environment only, and
// the electron-builder overrides that skip what has no identity (so an
// unsigned build is a stated choice, never a failure or a silent one).
// Names are electron-builder 26's: CSC_LINK/CSC_NAME (macOS, also Windows),
// WIN_CSC_LINK, and the notarization credentials of @electron/notarize.

const has = (env, ...names) => names.every((n) => typeof env[n] === 'string' && env[n] !== '');

/** @param {Record<string, string | undefined>} env @param {string} platform */
export function signingPlan(env, platform) {
  const notes = [];
  const overrides = [];
  if (platform === 'darwin') {
    const sign = has(env, 'CSC_LINK') || has(env, 'CSC_NAME');
    if (!sign) {
      notes.push('macOS: not signed (no CSC_LINK or CSC_NAME with a "Developer ID Application" certificate); Gatekeeper will refuse the app and the microphone and Apple Events prompts need a signed hardened-runtime build.');
      overrides.push('-c.mac.identity=null');
    }
    const notarize = sign && (has(env, 'APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER') || has(env, 'APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID') || has(env, 'APPLE_KEYCHAIN_PROFILE'));
    if (!notarize) {
      notes.push(sign
        ? 'macOS: not notarized (set APPLE_API_KEY, APPLE_API_KEY_ID and APPLE_API_ISSUER, or APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD and APPLE_TEAM_ID).'
        : 'macOS: not notarized (an unsigned app cannot be).');
      overrides.push('-c.mac.notarize=false');
    }
    return { sign, notarize, notes, overrides };
  }
  if (platform === 'win32') {
    const sign = has(env, 'WIN_CSC_LINK') || has(env, 'CSC_LINK');
    if (!sign) notes.push('Windows: not signed (no WIN_CSC_LINK or CSC_LINK); SmartScreen will warn on first start.');
    return { sign, notarize: false, notes, overrides };
  }
  return { sign: false, notarize: false, notes: ['Linux: AppImage and .deb are not signed (nothing to configure).'], overrides };
}
