// What the Files view's export buttons save: file names, types and contents
// of a transcript as text, SRT, WebVTT or JSON. DOM-free (download.ts saves).
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

export function exportContent(format: ExportFormat, t: FileResultTranscript): string {
  if (format !== 'json') return exportTranscript(format, t.text, t.words, t.durationSec);
  // The app's JSON carries what the view shows (source, length, speed, devices) besides the words.
  const { path, durationSec, elapsedMs, devicesRan, text, words } = t;
  return `${JSON.stringify({ file: path, durationSec, elapsedMs: Math.round(elapsedMs), devicesRan, text, words }, null, 2)}\n`;
}
