// The lines of a history entry file. Every entry is one JSON Lines file under
// <userData>/history/entries/<id>.jsonl: an `entry` header, then the content
// (a dictation: one `segment` per final, appended as it is emitted; a file:
// its `text`, then one `word` per line, written at once and atomically), then
// a `closed` marker. A dictation journal without the marker was cut short by
// a crash. One format for both kinds means one reader and a search that
// streams line by line whatever the kind.
//
// Parsing is strict per line and never throws: a line that is not a valid
// record (torn by a crash, edited by hand) is skipped by the readers.
import type { FileSpeechCut, HistoryKind, HistorySegment, MeetingTrackName, Word } from '../../ipc/contract.js';
import {
  arrayOf, bool, HISTORY_KINDS, historyId, nullable, num, object, oneOf, str, type Check,
} from '../../ipc/validate.js';

export const FORMAT_VERSION = 1;

export interface EntryRecord {
  type: 'entry';
  version: number;
  id: string;
  kind: HistoryKind;
  title: string;
  createdAt: string;
  modelId: string | null;
  modelName: string | null;
  /** A file entry: the transcribed file. */
  sourcePath: string | null;
}

/** One dictation final, as emitted (times in session seconds). */
export interface SegmentRecord extends HistorySegment {
  type: 'segment';
  sessionId: string;
}

/** A file's transcript text and facts (its words follow, one line each). */
export interface TextRecord {
  type: 'text';
  text: string;
  durationSec: number;
  devicesRan: string[];
  elapsedMs: number;
  phrasesFired?: string[];
  /** How the file's speech was found (entries written before it was recorded have none). */
  speechCut?: FileSpeechCut;
}

export interface WordRecord extends Word {
  type: 'word';
}

export interface ClosedRecord {
  type: 'closed';
  at: string;
  durationSec: number;
  /** Written at start-up for a journal the app never closed (it stopped during the session). */
  recovered: boolean;
}

/** A meeting's marker (a note added while recording), at meeting seconds. */
export interface MarkerRecord {
  type: 'marker';
  at: number;
  text: string;
}

/** A meeting's track: its audio file (in the entry's audio folder), label and where its sample 0 sits in meeting time. */
export interface TrackRecord {
  type: 'track';
  track: MeetingTrackName;
  speaker: string;
  /** File name only (letters, digits, dots, dashes): the folder is the entry's. */
  file: string;
  offsetSec: number;
}

export type HistoryRecord = EntryRecord | SegmentRecord | TextRecord | WordRecord | ClosedRecord | MarkerRecord | TrackRecord;

const text = str({ max: 10_000_000, allowEmpty: true });
const name = str({ max: 4096 });
const seconds = num(0, 1e9, false);
const finite = num(-1e12, 1e12, false);
const devices = arrayOf(str({ max: 128 }), 64);
const phrases = arrayOf(str({ max: 1000 }), 1000);
const speechCut: Check<FileSpeechCut> = object<FileSpeechCut>(
  { detector: oneOf(['silero', 'energy'] as const), model: str({ max: 200 }), decodedSec: seconds }, ['model'],
);
const word: Check<Word> = object<Word>({ text, start: finite, end: finite, confidence: finite, speaker: str({ max: 64 }) }, ['speaker']);

const CHECKS: { [T in HistoryRecord['type']]: Check<Extract<HistoryRecord, { type: T }>> } = {
  entry: object<EntryRecord>({
    type: oneOf(['entry'] as const),
    version: num(1, 1000, true),
    id: historyId,
    kind: oneOf(HISTORY_KINDS),
    title: name,
    createdAt: str({ max: 64, pattern: /^\d{4}-\d\d-\d\dT/, what: 'an ISO time' }),
    modelId: nullable(name),
    modelName: nullable(name),
    sourcePath: nullable(name),
  }),
  segment: object<SegmentRecord>({
    type: oneOf(['segment'] as const),
    sessionId: str({ max: 40 }),
    segmentId: num(0, Number.MAX_SAFE_INTEGER, true),
    start: seconds,
    end: seconds,
    text,
    devicesRan: devices,
    words: arrayOf(word),
    speaker: str({ max: 64 }),
    edited: bool,
    phrasesFired: phrases,
  }, ['speaker', 'edited', 'phrasesFired']),
  text: object<TextRecord>({
    type: oneOf(['text'] as const), text, durationSec: seconds, devicesRan: devices, elapsedMs: seconds, phrasesFired: phrases, speechCut,
  }, ['phrasesFired', 'speechCut']),
  word: object<WordRecord>({ type: oneOf(['word'] as const), text, start: finite, end: finite, confidence: finite, speaker: str({ max: 64 }) }, ['speaker']),
  marker: object<MarkerRecord>({ type: oneOf(['marker'] as const), at: seconds, text }),
  track: object<TrackRecord>({
    type: oneOf(['track'] as const),
    track: oneOf(['you', 'others'] as const),
    speaker: str({ max: 64 }),
    file: str({ max: 64, pattern: /^[a-z0-9][a-z0-9.-]*\.wav$/, what: 'a track file name' }),
    offsetSec: seconds,
  }),
  closed: object<ClosedRecord>({ type: oneOf(['closed'] as const), at: str({ max: 64 }), durationSec: seconds, recovered: bool }),
};

function isRecordType(type: unknown): type is HistoryRecord['type'] {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(CHECKS, type);
}

/** The record on this line, or null when the line is not one (torn, corrupt, from another format). */
export function parseRecord(line: string): HistoryRecord | null {
  if (!line.trim()) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (!isRecordType(type)) return null;
  try {
    return (CHECKS[type] as Check<HistoryRecord>)(value, type);
  } catch {
    return null;
  }
}

/** One line, newline included. JSON.stringify escapes every newline inside strings, so a record is always one line. */
export function recordLine(record: HistoryRecord): string {
  return `${JSON.stringify(record)}\n`;
}
