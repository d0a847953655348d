// Processing times in words, the same in the views, the diagnostics and the CLI.

/** "85 ms", "2.41 s"; "—" for no number. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Audio seconds per second of processing: "41× real time" (one decimal below 10×). */
export function formatRealTime(durationSec: number, elapsedMs: number): string {
  const factor = durationSec / (elapsedMs / 1000);
  if (!Number.isFinite(factor) || factor <= 0) return '—';
  return `${factor >= 10 ? Math.round(factor) : factor.toFixed(1)}× real time`;
}
