// Byte sizes for people, one convention everywhere (views, diagnostics, error messages): decimal units as
// file managers and disk makers show them (1 kB = 1000 B, 1 MB = 10^6 B, 1 GB = 10^9 B), so "178 MB" in the
// catalog is the 178 MB a file manager shows for the download.
const UNITS = ['kB', 'MB', 'GB', 'TB', 'PB'];

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return 'unknown size';
  if (Math.abs(bytes) < 1000) return `${Math.round(bytes)} B`;
  let value = bytes / 1000;
  let unit = 0;
  // Rounded first, so 999 960 B is "1.00 MB", never "1000 kB".
  while (unit < UNITS.length - 1 && Number(value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)) >= 1000) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${UNITS[unit]}`;
}
