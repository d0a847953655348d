// Preferences that belong to this window rather than to the app's settings
// (the main process does not need them): kept in localStorage.
const KEEP_MIC_ARMED = 'parakeet.keepMicArmed';

export function loadKeepMicArmed(): boolean {
  try {
    return localStorage.getItem(KEEP_MIC_ARMED) === '1';
  } catch {
    return false;
  }
}

export function saveKeepMicArmed(value: boolean): void {
  try {
    localStorage.setItem(KEEP_MIC_ARMED, value ? '1' : '0');
  } catch {
    // Storage disabled: the choice lasts for this window only.
  }
}
