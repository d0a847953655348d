// What the export buttons (Files and History views) save: file names, types
// and contents of a transcript as text, SRT, WebVTT or JSON. DOM-free
// (download.ts saves).
import type { HistoryEntry, Word } from '../app/ipc/contract.js';
import { meetingExport, type MeetingExportFormat, type MeetingTranscript } from '../app/shared/meeting-export.js';
import { exportTranscript, type ExportFormat } from '../app/shared/subtitles.js';
import { fileName } from './format.js';
import type { FileResultTranscript } from './store/types.js';

export interface ExportKind {
  format: ExportFormat;
  /** Button text. */
  label: string;
  /** What the file is, for the button's accessible name. */
  description: string;
  mime: string;
}

export const EXPORT_KINDS: readonly ExportKind[] = [
  { format: 'txt', label: '.txt', description: 'plain text', mime: 'text/plain;charset=utf-8' },
  { format: 'srt', label: '.srt', description: 'SRT subtitles', mime: 'application/x-subrip;charset=utf-8' },
  { format: 'vtt', label: '.vtt', description: 'WebVTT subtitles', mime: 'text/vtt;charset=utf-8' },
  { format: 'json', label: '.json', description: 'JSON with word timings', mime: 'application/json;charset=utf-8' },
];

/** "meeting.wav" → "meeting.srt" (the audio's name, so the two sort together). */
export function exportFileName(audioPath: string, format: ExportFormat): string {
  const base = fileName(audioPath).replace(/\.[^.]*$/, '') || 'transcript';
  return `${base}.${format}`;
}

/** Times and confidences to the millisecond (and 1/1000): 2.8000000000000003 is float noise, not precision. */
export function roundedForJson(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value;
}

/** Text and subtitles come from the text and the timed words; the JSON carries what the view shows besides. */
function build(format: ExportFormat, text: string, words: readonly Word[], durationSec: number, json: () => object): string {
  if (format !== 'json') return exportTranscript(format, text, words, durationSec);
  return `${JSON.stringify(json(), roundedForJson, 2)}\n`;
}

/**
 * A file's transcript. `source`: the file as the user knows it; an upload has a name but no path (the
 * server's copy is deleted once transcribed, so its path would name nothing).
 */
export function exportContent(
  format: ExportFormat, t: FileResultTranscript, source: { name: string; path: string | null } = { name: fileName(t.path), path: t.path },
): string {
  const { durationSec, elapsedMs, devicesRan, text, words } = t;
  return build(format, text, words, durationSec, () => ({
    title: source.name,
    ...(source.path ? { file: source.path } : {}),
    model: t.model ?? null,
    decoder: t.decoder ?? null,
    durationSec,
    elapsedMs: Math.round(elapsedMs),
    devicesRan,
    ...(t.speechCut ? { speechCut: t.speechCut } : {}),
    text,
    words,
  }));
}

/** A history entry's export name: a file's after its audio, a dictation's after its title ("dictation-2025-03-04-1405.txt"). */
export function historyExportName(e: Pick<HistoryEntry, 'kind' | 'title' | 'sourcePath'>, format: ExportFormat | MeetingExportFormat): string {
  if (e.kind === 'file' && e.sourcePath && format !== 'md' && format !== 'rttm') return exportFileName(e.sourcePath, format);
  const base = e.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'transcript';
  return `${base}.${format}`;
}

/** A meeting entry as meeting-export.ts takes it. */
export function meetingTranscript(e: HistoryEntry): MeetingTranscript {
  return { title: e.title, createdAt: e.createdAt, durationSec: e.durationSec, recovered: e.recovered, segments: e.segments, markers: e.markers ?? [] };
}

export function historyExportContent(format: ExportFormat, e: HistoryEntry): string {
  // A meeting: each line and cue with its speaker and time.
  if (e.kind === 'meeting') return meetingExport(format, meetingTranscript(e));
  return build(format, e.text, e.words, e.durationSec, () => ({
    title: e.title,
    kind: e.kind,
    createdAt: e.createdAt,
    ...(e.sourcePath ? { file: e.sourcePath } : {}),
    durationSec: e.durationSec,
    model: e.modelName,
    devicesRan: e.devices,
    ...(e.recovered ? { recovered: true } : {}),
    ...(e.phrasesFired.length ? { phrasesFired: e.phrasesFired } : {}),
    ...(e.speechCut ? { speechCut: e.speechCut } : {}),
    text: e.text,
    ...(e.kind === 'dictation' ? { segments: e.segments } : { words: e.words }),
  }));
}
