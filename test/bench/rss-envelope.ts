// RSS envelope of a long run: per window of W minutes, the lowest and highest
// sample. A streaming meeting maps and unmaps a stream's buffers (≈ 10 MB each,
// issue 39's malloc pin) as segments open and close, so one sample swings by
// tens of MB depending on how many streams were live at that instant; growth
// is judged on the envelope instead: the floor (no stream live) and the peak
// (the most streams live) of the last window against those of the first
// window that starts at or after `fromMinute`.
export interface RssWindow {
  fromMinute: number;
  toMinute: number;
  minMB: number;
  maxMB: number;
}

export interface RssEnvelope {
  windows: RssWindow[];
  /** Last window's floor minus the first window's floor (MB). */
  floorGrowthMB: number;
  /** Last window's peak minus the first window's peak (MB). */
  peakGrowthMB: number;
}

/** `samples`: [meeting minute (fractional), RSS in MB]. Null when no window starts at or after fromMinute. */
export function rssEnvelope(samples: readonly (readonly [number, number])[], fromMinute: number, windowMinutes: number): RssEnvelope | null {
  const last = Math.max(...samples.map(([m]) => m));
  const windows: RssWindow[] = [];
  for (let from = fromMinute; from + windowMinutes <= last + 1e-9; from += windowMinutes) {
    const inWindow = samples.filter(([m]) => m >= from && m <= from + windowMinutes).map(([, mb]) => mb);
    if (inWindow.length === 0) continue;
    windows.push({ fromMinute: from, toMinute: from + windowMinutes, minMB: Math.min(...inWindow), maxMB: Math.max(...inWindow) });
  }
  if (windows.length === 0) return null;
  const first = windows[0]!;
  const end = windows.at(-1)!;
  return {
    windows,
    floorGrowthMB: Math.round((end.minMB - first.minMB) * 10) / 10,
    peakGrowthMB: Math.round((end.maxMB - first.maxMB) * 10) / 10,
  };
}
