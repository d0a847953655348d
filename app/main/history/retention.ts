// Which entries the retention settings remove: those older than keepDays
// (0 = never by age) and, newest first, every one past maxEntries. A
// dictation still being recorded is never removed (it is the newest anyway,
// unless the clock jumped). Pure: the clock is a parameter.
import type { HistoryEntrySummary, HistorySettings } from '../../ipc/contract.js';

const DAY_MS = 86_400_000;

/** Newest first by creation time (ties: by id, which starts with the time too). */
export function newestFirst(a: HistoryEntrySummary, b: HistoryEntrySummary): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

export function entriesToPrune(
  entries: readonly HistoryEntrySummary[],
  settings: Pick<HistorySettings, 'keepDays' | 'maxEntries'>,
  now: number,
): string[] {
  const cutoff = settings.keepDays > 0 ? now - settings.keepDays * DAY_MS : Number.NEGATIVE_INFINITY;
  const prune: string[] = [];
  let kept = 0;
  for (const entry of [...entries].sort(newestFirst)) {
    const created = Date.parse(entry.createdAt);
    const tooOld = Number.isFinite(created) && created < cutoff;
    if (entry.live || (!tooOld && kept < settings.maxEntries)) kept += 1;
    else prune.push(entry.id);
  }
  return prune;
}
