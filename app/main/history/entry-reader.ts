// Reading entry files back, always line by line from a stream: the index's
// summary of an entry (rebuild, recovery), the whole entry (history:get) and
// the search (history:list with a query). Memory is bounded by one line, not
// by the entry, except in readEntry, which returns the whole entry by design.
// A line that does not parse is skipped (a crash can tear the last one).
import { speakersOf } from '../../shared/diarization.js';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { FileSpeechCut, HistoryEntry, HistoryEntrySummary, HistorySegment, MeetingAudioTrack, MeetingMarker, Word } from '../../ipc/contract.js';
import { parseRecord, type EntryRecord, type HistoryRecord } from './records.js';
import { summaryOf, Tally } from './tally.js';
import { joinSegments } from '../../shared/text-transform.js';

/** Every valid record of the file in order; corrupt lines are counted in `skipped`. */
export async function* readRecords(file: string, skipped?: { count: number }): AsyncGenerator<HistoryRecord> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const record = parseRecord(line);
      if (record) yield record;
      else if (line.trim() && skipped) skipped.count += 1;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

export interface ScannedEntry {
  summary: HistoryEntrySummary;
  /** The file ends with a `closed` marker (false: a dictation the app never closed). */
  closed: boolean;
  /** Lines that were not valid records and were skipped. */
  skippedLines: number;
}

/**
 * The index entry of a file, or null when its first line is not a valid header (nothing says what the
 * file is; it is left alone). An unclosed file is reported as it is: recovery is the caller's decision.
 */
export async function scanEntry(file: string): Promise<ScannedEntry | null> {
  const skipped = { count: 0 };
  let header: EntryRecord | null = null;
  const tally = new Tally();
  let closed = false;
  let recovered = false;
  let first = true;
  for await (const record of readRecords(file, skipped)) {
    if (first) {
      first = false;
      if (record.type !== 'entry' || skipped.count > 0) return null;
      header = record;
      continue;
    }
    tally.add(record);
    if (record.type === 'closed') {
      closed = true;
      recovered = record.recovered;
    }
  }
  if (!header) return null;
  return { summary: summaryOf(header, tally, { recovered, live: false }), closed, skippedLines: skipped.count };
}

/**
 * Only the audio tracks of an entry (what a media request needs), without the transcript: the lines of
 * other records are not even parsed, so a long meeting costs one read of its file, not its whole text.
 */
export async function readEntryAudio(file: string): Promise<MeetingAudioTrack[]> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const audio: MeetingAudioTrack[] = [];
  try {
    for await (const line of lines) {
      if (!line.includes('"track"')) continue;
      const record = parseRecord(line);
      if (record?.type !== 'track') continue;
      const { type: _type, ...track } = record;
      audio.push(track);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return audio;
}

/** The whole entry; `summary` is the index's (live state, counters of a session still recording). */
export async function readEntry(file: string, summary: HistoryEntrySummary): Promise<HistoryEntry> {
  const segments: HistorySegment[] = [];
  const words: Word[] = [];
  let fileText: string | null = null;
  let speechCut: FileSpeechCut | undefined;
  const fired = new Set<string>();
  const markers: MeetingMarker[] = [];
  const audio: MeetingAudioTrack[] = [];
  for await (const record of readRecords(file)) {
    if (record.type === 'segment') {
      const { type: _type, sessionId: _session, ...segment } = record;
      segments.push(segment);
      words.push(...segment.words);
      for (const phrase of segment.phrasesFired ?? []) fired.add(phrase);
    } else if (record.type === 'text') {
      fileText = record.text;
      speechCut = record.speechCut;
      for (const phrase of record.phrasesFired ?? []) fired.add(phrase);
    } else if (record.type === 'word') {
      const { type: _type, ...w } = record;
      words.push(w);
    } else if (record.type === 'marker') {
      markers.push({ at: record.at, text: record.text });
    } else if (record.type === 'track') {
      const { type: _type, ...track } = record;
      audio.push(track);
    }
  }
  if (summary.kind === 'meeting') {
    // Each track's finals are journaled as they are ready: the two tracks interleave by time only here.
    segments.sort((a, b) => a.start - b.start || (a.speaker ?? '').localeCompare(b.speaker ?? ''));
    words.length = 0;
    for (const s of segments) words.push(...s.words);
    markers.sort((a, b) => a.at - b.at);
    return { ...summary, text: segments.map((s) => s.text).filter(Boolean).join(' '), phrasesFired: [...fired], segments, words, markers, audio };
  }
  // A dictation's text is its finals joined as the session's summary joins them.
  const text = fileText ?? joinSegments(segments.map((s) => s.text));
  return { ...summary, text, phrasesFired: [...fired], segments, words, ...(speechCut ? { speechCut } : {}) };
}

/**
 * Whether the entry's text contains `needle` (already lower-cased). A match across two segments counts:
 * each segment is searched with the tail of the one before. Stops at the first match, and after a file's
 * text (its words only repeat it).
 */
export async function entryContains(file: string, needle: string): Promise<boolean> {
  let tail = '';
  for await (const record of readRecords(file)) {
    if (record.type === 'segment' || record.type === 'text') {
      const hay = record.text.toLowerCase();
      if (`${tail} ${hay}`.includes(needle)) return true;
      // A meeting's speakers are found by name too ("Ana" finds the meeting where Ana speaks).
      if (record.type === 'segment' && speakersOf([record]).some((name) => name.toLowerCase().includes(needle))) return true;
      if (record.type === 'text') return false;
      if (hay) tail = hay.slice(-needle.length);
    } else if (record.type === 'word') {
      return false;
    }
  }
  return false;
}
