// Number formatting for the views (sizes, speeds, durations). DOM-free.

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return 'unknown size';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${units[unit]}`;
}

export function formatSpeed(bytesPerSecond: number): string {
  return `${formatBytes(Math.max(0, Math.round(bytesPerSecond)))}/s`;
}

export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'time left unknown';
  if (seconds < 1) return 'less than a second left';
  if (seconds < 60) return `${Math.round(seconds)} s left`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return `${m} min ${s} s left`;
  return `${Math.floor(m / 60)} h ${m % 60} min left`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatPercent(fraction: number | null): string {
  return fraction === null ? '' : `${Math.floor(fraction * 100)} %`;
}

export function formatLanguages(languages: readonly string[]): string {
  if (languages.length === 0) return 'unknown';
  if (languages.length <= 4) return languages.join(', ');
  return `${languages.length} languages (${languages.slice(0, 3).join(', ')}, …)`;
}
