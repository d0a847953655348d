// The window.parakeet the renderer talks to, installed once by bridge.ts.
// Kept behind a getter so actions and tests can swap in a fake.
import type { ParakeetApi } from '../../app/ipc/contract.js';

let current: ParakeetApi | null = null;

export function setApi(api: ParakeetApi | null): void {
  current = api;
}

export function api(): ParakeetApi {
  if (!current) throw new Error('window.parakeet is not installed yet (bridge.ts installs it at start-up)');
  return current;
}
