// Press → first partial → text inserted, measured from the press itself: the
// global hotkey's key-down (timestamped by the key hook in main), the page's
// keydown, or the click. Epoch milliseconds on both ends (one machine, one
// clock), so the figure includes the hop from main to this window.
import type { TranscriptEvent } from '../../app/ipc/contract.js';

export interface KeyLatency {
  /** Epoch ms of the press that started the session. */
  pressedAt: number;
  /** What was pressed: the global hotkey, a key in this window, or a button. */
  source: 'hotkey' | 'key' | 'button';
  /** The session it started, once main created it. */
  sessionId: string | null;
  /** Press → the first text (partial or final) of that session arrived here (ms). */
  firstTextMs: number | null;
  /** Press → its first text was inserted into the focused app (ms); null until it is (or never, insert off). */
  insertedMs: number | null;
}

export function pressed(pressedAt: number, source: KeyLatency['source']): KeyLatency {
  return { pressedAt, source, sessionId: null, firstTextMs: null, insertedMs: null };
}

export function attachSession(k: KeyLatency | null, sessionId: string): KeyLatency | null {
  return k && k.sessionId === null ? { ...k, sessionId } : k;
}

export function textArrived(k: KeyLatency | null, ev: Pick<TranscriptEvent, 'sessionId' | 'text'>, now: number): KeyLatency | null {
  if (!k || k.sessionId !== ev.sessionId || k.firstTextMs !== null || !ev.text.trim()) return k;
  return { ...k, firstTextMs: Math.max(0, Math.round(now - k.pressedAt)) };
}

export function textInserted(k: KeyLatency | null, ev: { sessionId: string; at: number }): KeyLatency | null {
  if (!k || k.sessionId !== ev.sessionId || k.insertedMs !== null) return k;
  return { ...k, insertedMs: Math.max(0, Math.round(ev.at - k.pressedAt)) };
}
