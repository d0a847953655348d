// A meeting's transcript as a file: plain text, SRT, WebVTT, JSON or Markdown,
// each line or cue with its speaker label ("You", "Others") and time, the
// markers in place. Cues come from each segment's words by the subtitle rules
// of subtitles.ts (one speaker per cue: a cue never spans two segments); the
// segments are taken in time order. Pure (no Node, no DOM): the renderer's
// export buttons and the CLI can share it.
import type { HistorySegment, MeetingMarker, Word } from '../ipc/contract.js';
import { toRttm } from './diarization.js';
import { formatClock, wordsToCues, type Cue } from './subtitles.js';

export type MeetingExportFormat = 'txt' | 'srt' | 'vtt' | 'json' | 'md' | 'rttm';
export const MEETING_EXPORT_FORMATS: readonly MeetingExportFormat[] = ['txt', 'srt', 'vtt', 'json', 'md', 'rttm'];

export interface MeetingTranscript {
  title: string;
  createdAt: string;
  durationSec: number;
  recovered: boolean;
  segments: readonly HistorySegment[];
  markers: readonly MeetingMarker[];
}

interface SpeakerCue extends Cue {
  speaker: string;
}

/** "01:02:03" (or "02:03" under an hour), for text and Markdown. */
export function shortClock(seconds: number): string {
  const full = formatClock(seconds, '.').slice(0, 8);
  return full.startsWith('00:') ? full.slice(3) : full;
}

/**
 * The segments in time order, each cut where its words change speaker (a diarized "Others" track: the
 * words carry "Speaker 2", …, or the names the user gave them); a word without one keeps the track's label.
 */
function ordered(t: MeetingTranscript): HistorySegment[] {
  const out: HistorySegment[] = [];
  for (const segment of t.segments) {
    if (!segment.text.trim()) continue;
    if (!segment.words.some((w) => w.speaker !== undefined)) {
      out.push(segment);
      continue;
    }
    for (const w of segment.words) {
      const speaker = w.speaker ?? segment.speaker;
      const last = out.at(-1);
      if (last !== undefined && last.segmentId === segment.segmentId && last.speaker === speaker) {
        last.words.push(w);
        last.end = w.end;
        last.text += ` ${w.text.trim()}`;
      } else {
        out.push({ ...segment, start: w.start, end: w.end, text: w.text.trim(), words: [w], ...(speaker === undefined ? {} : { speaker }) });
      }
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

function cuesOf(t: MeetingTranscript): SpeakerCue[] {
  const cues: SpeakerCue[] = [];
  for (const segment of ordered(t)) {
    const words: Word[] = segment.words.length ? segment.words : [{ text: segment.text, start: segment.start, end: segment.end, confidence: 1 }];
    for (const cue of wordsToCues(words, { endLimit: segment.end })) cues.push({ ...cue, speaker: segment.speaker ?? '' });
  }
  return cues.sort((a, b) => a.start - b.start);
}

function label(speaker: string | undefined): string {
  return speaker ? `${speaker}: ` : '';
}

export function meetingExport(format: MeetingExportFormat, t: MeetingTranscript): string {
  const segments = ordered(t);
  const markers = [...t.markers].sort((a, b) => a.at - b.at);
  switch (format) {
    case 'txt': {
      const lines = [
        ...segments.map((s) => ({ at: s.start, line: `[${shortClock(s.start)}] ${label(s.speaker)}${s.text.trim()}` })),
        ...markers.map((m) => ({ at: m.at, line: `[${shortClock(m.at)}] -- ${m.text}` })),
      ].sort((a, b) => a.at - b.at);
      return `${lines.map((l) => l.line).join('\n')}\n`;
    }
    case 'srt':
      return cuesOf(t)
        .map((cue, i) => `${i + 1}\n${formatClock(cue.start, ',')} --> ${formatClock(cue.end, ',')}\n${label(cue.speaker)}${cue.lines.join('\n')}\n`)
        .join('\n');
    case 'vtt': {
      // WebVTT's voice span names the speaker: players show or style it.
      const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      const body = cuesOf(t)
        .map((cue) => `${formatClock(cue.start, '.')} --> ${formatClock(cue.end, '.')}\n${cue.speaker ? `<v ${escape(cue.speaker)}>` : ''}${cue.lines.map(escape).join('\n')}\n`)
        .join('\n');
      return `WEBVTT\n\n${body}`;
    }
    case 'json':
      return `${JSON.stringify({
        title: t.title,
        createdAt: t.createdAt,
        durationSec: t.durationSec,
        ...(t.recovered ? { recovered: true } : {}),
        segments: segments.map((s) => ({ speaker: s.speaker ?? null, start: s.start, end: s.end, text: s.text, words: s.words })),
        markers,
      }, null, 2)}\n`;
    case 'md': {
      const escape = (s: string): string => s.replace(/([\\`*_[\]#<>|])/g, '\\$1');
      const head = `# ${escape(t.title)}\n\n${t.createdAt.slice(0, 16).replace('T', ' ')} UTC · ${shortClock(t.durationSec)}${t.recovered ? ' · recovered after a crash' : ''}\n`;
      const items = [
        ...segments.map((s) => ({ at: s.start, text: `**${escape(s.speaker ?? 'Speaker')}** (${shortClock(s.start)}): ${escape(s.text.trim())}` })),
        ...markers.map((m) => ({ at: m.at, text: `> **Marker** (${shortClock(m.at)}): ${escape(m.text)}` })),
      ].sort((a, b) => a.at - b.at);
      return `${head}\n${items.map((i) => i.text).join('\n\n')}\n`;
    }
    case 'rttm':
      // Who spoke when: one line per speaker turn (the title, spaces as underscores, is the file id).
      return toRttm(segments.map((s) => ({ speaker: s.speaker ?? 'Speaker', start: s.start, end: s.end })), t.title);
  }
}
