// Messages of the key-hook process (key-hook-process.ts) to main. Keys are
// already KeyboardEvent codes; `at` is the epoch ms when the hook saw the event.

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
