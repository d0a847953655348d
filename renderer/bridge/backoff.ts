// Reconnect delays for the web bridge: exponential from 250 ms, capped at
// 5 s, with jitter so several tabs do not reconnect in lockstep. DOM-free.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0..1: fraction of the delay that is randomised. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5000, jitter: 0.2 };

/** Delay before reconnect attempt `attempt` (0-based). */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const raw = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt));
  const spread = raw * opts.jitter;
  return Math.round(raw - spread + random() * spread);
}
