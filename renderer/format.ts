// Number formatting for the views (sizes, speeds, durations). DOM-free.

/** Decimal units (kB/MB/GB), as file managers show them: one convention in every view and the diagnostics. */
export { formatBytes } from '../app/shared/bytes.js';
import type { FileSpeechCut } from '../app/ipc/contract.js';
import { formatBytes } from '../app/shared/bytes.js';

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

/** Processing times: shared with the CLI (app/shared/time-format.ts). */
export { formatMs, formatRealTime } from '../app/shared/time-format.js';

export function formatPercent(fraction: number | null): string {
  return fraction === null ? '' : `${Math.floor(fraction * 100)} %`;
}

export function formatLanguages(languages: readonly string[]): string {
  if (languages.length === 0) return 'unknown';
  if (languages.length <= 4) return languages.join(', ');
  return `${languages.length} languages (${languages.slice(0, 3).join(', ')}, …)`;
}

/** The last part of a path, for either separator (Windows paths reach a renderer on any platform in web mode). */
export function fileName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
}

/** A word's time in a transcript: `mm:ss.cc`, or `h:mm:ss.cc` past the hour. */
export function formatTimestamp(seconds: number): string {
  const cs = Math.max(0, Math.round(seconds * 100));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const pad = (n: number) => String(n).padStart(2, '0');
  const rest = `${pad(m)}:${pad(s)}.${pad(cs % 100)}`;
  return h > 0 ? `${h}:${rest}` : rest;
}

/** Audio length in words: "12.6 s", "4 min 05 s", "1 h 02 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  return `${m} min ${String(total % 60).padStart(2, '0')} s`;
}

/**
 * How a file's speech was found, for its facts: "Silero VAD v6.2 (F32): 41.2 s decoded, 18.8 s of silence
 * skipped" or "Energy (no VAD model in use): the whole file decoded".
 */
export function formatSpeechCut(cut: FileSpeechCut, durationSec: number): string {
  if (cut.detector === 'energy') return 'Energy (no VAD model in use): the whole file decoded';
  const skipped = durationSec - cut.decodedSec;
  const what = cut.decodedSec <= 0 ? 'no speech found, nothing decoded'
    : skipped >= 0.05 ? `${formatDuration(cut.decodedSec)} decoded, ${formatDuration(skipped)} of silence skipped`
    : 'the whole file decoded';
  return `${cut.model ?? 'Silero VAD'}: ${what}`;
}

/** A relative error, short at every magnitude: "2.1e-7", "0.83", "0". */
export function formatRelativeError(value: number): string {
  if (value === 0) return '0';
  return value < 1e-3 ? value.toExponential(1) : value.toPrecision(2);
}

/** A stored ISO time as the user's locale shows a date and time ("4 Mar 2025, 14:05"). */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}
