// Messages of the key-hook process (key-hook-process.ts) to main. Keys are
// already KeyboardEvent codes; `at` is the epoch ms when the hook saw the event.
// The process names only the keys main watches (WATCH_ENV: the hotkey's keys
// and Esc); any other key is OTHER_KEY, so what the user types never leaves
// the hook process.

/** Comma-separated KeyboardEvent codes the hook process may name. */
export const WATCH_ENV = 'PARAKEET_KEY_HOOK_WATCH';
/** Any key not watched: enough to tell that a shortcut was typed, not which. */
export const OTHER_KEY = 'Other';

export type KeyHookMessage =
  | { type: 'ready' }
  | { type: 'key'; down: boolean; code: string; at: number }
  | { type: 'failed'; message: string };

export function isKeyHookMessage(value: unknown): value is KeyHookMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  if (m.type === 'ready') return true;
  if (m.type === 'failed') return typeof m.message === 'string';
  return m.type === 'key' && typeof m.down === 'boolean' && typeof m.code === 'string' && typeof m.at === 'number';
}
