// The history: every dictation session and every file transcription kept on
// disk under <userData>/history (entries/<id>.jsonl and index.json; see
// records.ts, index-file.ts, journal.ts). Electron-free. It observes the
// session manager (one recorder per running session) and the file
// transcriber, answers history:list/get/delete/clear, applies the retention
// settings, and announces every change as history:changed.
//
// Start-up: the index is read (or rebuilt from the entry files when missing
// or corrupt) and checked against the folder; a dictation journal without its
// closed marker (the app stopped during the session) is closed as
// "recovered" with everything it holds; then retention runs.
//
// Saving history never stops a dictation or fails a transcription: a write
// error becomes a notice that says what happened and what to do.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  FileTranscript, HistoryChange, HistoryEntry, HistoryEntrySummary, HistoryList, HistoryListRequest, HistorySegment, HistorySettings, MeetingAudioTrack, Notice,
  TranscriptEvent, Word,
} from '../../ipc/contract.js';
import { HISTORY_ID } from '../../ipc/validate.js';
import { CodedError } from '../../../types/errors.js';
import { describeWriteError } from '../util/write-error.js';
import type { Logger } from '../log.js';
import type { SessionObserver } from '../sessions/session-manager.js';
import { DictationRecorder, type RecorderHost } from './dictation-recorder.js';
import { entryContains, readEntry, readEntryAudio, readRecords, scanEntry } from './entry-reader.js';
import type { EntryAudio } from '../media/entry-sources.js';
import { writeFileEntry } from './file-entry.js';
import { IndexWriter, loadIndex } from './index-file.js';
import { closeLeftOpen } from './journal.js';
import { repairMeetingAudio } from '../meeting/recovery.js';
import { editSegment } from './segment-edit.js';
import { renameSpeaker, speakersOf } from '../../shared/diarization.js';
import { FORMAT_VERSION, recordLine, type EntryRecord, type HistoryRecord, type SegmentRecord } from './records.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { entriesToPrune, newestFirst } from './retention.js';
import { summaryOf, Tally } from './tally.js';

export interface HistoryServiceOptions {
  /** <userData>/history */
  dir: string;
  settings: () => HistorySettings;
  /** The model that makes new entries (installed id and name), read when an entry starts. */
  model: () => { id: string | null; name: string | null };
  emit: (change: HistoryChange) => void;
  notify: (notice: Notice) => void;
  log: Logger;
  /** The clock (tests). */
  now?: () => number;
}

/** What the history needs from a running meeting (app/main/meeting): stop writing, the entry is being deleted. */
export interface MeetingEntryOwner {
  discard(): Promise<void>;
}

const DEFAULT_PAGE = 50;
const ENTRY_EXT = '.jsonl';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** "2025-03-04 14:05" in local time. */
export function localDateTime(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Sortable and unique: "20250304-130501-3fa9c2" (UTC time, random suffix). */
function newEntryId(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${randomBytes(3).toString('hex')}`;
}


/** Closed meetings whose tracks audioOf keeps (a player plays one at a time). */
const AUDIO_TRACKS_CACHED = 16;

export class HistoryService implements SessionObserver {
  private readonly entries = new Map<string, HistoryEntrySummary>();
  /** Audio tracks of closed meetings, read once for the media requests (audioOf); the latest few. */
  private readonly audioTracks = new Map<string, Promise<MeetingAudioTrack[]>>();
  /** Running sessions by session id; an entry exists once the recorder reports it. */
  private readonly recorders = new Map<string, DictationRecorder>();
  private readonly index: IndexWriter;
  private readonly entriesDir: string;
  private readonly now: () => number;
  /** Work started by events (retention after an entry, sessions being closed), awaited by settled(). */
  private readonly background = new Set<Promise<unknown>>();
  /** The rewrite of an entry's file running per entry (the next one waits for it). */
  private readonly edits = new Map<string, Promise<HistoryEntry>>();
  /** Meetings being recorded, by entry id. */
  private readonly meetings = new Map<string, MeetingEntryOwner>();
  /** Journals found open at start-up and closed as recovered. */
  recoveredAtStart = 0;
  /** Of those, meetings (their audio repaired too). */
  recoveredMeetingsAtStart = 0;

  private constructor(private readonly opts: HistoryServiceOptions) {
    this.entriesDir = path.join(opts.dir, 'entries');
    this.now = opts.now ?? Date.now;
    this.index = new IndexWriter(path.join(opts.dir, 'index.json'), () => [...this.entries.values()].sort(newestFirst));
  }

  static async open(opts: HistoryServiceOptions): Promise<HistoryService> {
    const service = new HistoryService(opts);
    try {
      await service.load();
      await service.prune();
    } catch (error) {
      // An unreadable history must not stop the app: it starts empty and writes report their own errors.
      opts.log.error('cannot read the history', error);
      opts.notify({
        level: 'warning',
        code: 'HISTORY_UNREADABLE',
        message: `The history in ${opts.dir} could not be read (${describeWriteError(error)}).`,
        action: 'Check that the folder exists and can be written, then restart the app.',
      });
    }
    return service;
  }

  private fileOf(id: string): string {
    return path.join(this.entriesDir, `${id}${ENTRY_EXT}`);
  }

  // ------------------------------------------------------------ start-up

  private async load(): Promise<void> {
    await fs.mkdir(this.entriesDir, { recursive: true });
    const indexed = await loadIndex(path.join(this.opts.dir, 'index.json'));
    const onDisk = new Set<string>();
    for (const name of await fs.readdir(this.entriesDir)) {
      const id = name.endsWith(ENTRY_EXT) ? name.slice(0, -ENTRY_EXT.length) : '';
      if (HISTORY_ID.test(id)) onDisk.add(id);
      // A temp file of an atomic write the app did not finish.
      else if (name.startsWith('.') && name.includes('.tmp-')) await fs.rm(path.join(this.entriesDir, name), { force: true });
    }
    let changed = indexed === null;
    if (indexed === null) this.opts.log.warn('the history index is missing or unreadable; rebuilding it from the entry files');
    const toScan = new Set(onDisk);
    for (const entry of indexed ?? []) {
      if (!onDisk.has(entry.id)) {
        changed = true; // its file is gone
        continue;
      }
      // A live entry in the index: the app stopped during that session; its journal knows more.
      if (entry.live) continue;
      this.entries.set(entry.id, entry);
      toScan.delete(entry.id);
    }
    for (const id of toScan) {
      const scanned = await scanEntry(this.fileOf(id)).catch((error: unknown) => {
        this.opts.log.warn(`history entry ${id} cannot be read`, error);
        return null;
      });
      if (!scanned || scanned.summary.id !== id) {
        this.opts.log.warn(`history entry ${id} has no valid header; it is left as it is`);
        continue;
      }
      if (scanned.skippedLines) this.opts.log.warn(`history entry ${id}: ${scanned.skippedLines} unreadable line(s) skipped`);
      if (!scanned.closed) await this.recover(scanned.summary);
      this.entries.set(id, scanned.summary);
      changed = true;
    }
    if (this.recoveredAtStart) this.opts.log.info(`${this.recoveredAtStart} dictation(s) recovered into the history`);
    if (changed) await this.index.save();
  }

  /** <history>/audio/<id>: a meeting's track files. */
  audioDirOf(id: string): string {
    return path.join(this.opts.dir, 'audio', id);
  }

  private async recover(summary: HistoryEntrySummary): Promise<void> {
    summary.recovered = true;
    summary.live = false;
    this.recoveredAtStart += 1;
    if (summary.kind === 'meeting') {
      this.recoveredMeetingsAtStart += 1;
      await repairMeetingAudio(this.audioDirOf(summary.id), this.opts.log);
    }
    await closeLeftOpen(this.fileOf(summary.id), {
      type: 'closed',
      at: new Date(this.now()).toISOString(),
      durationSec: summary.durationSec,
      recovered: true,
    }).catch((error: unknown) => this.opts.log.warn(`cannot mark history entry ${summary.id} as recovered`, error));
  }

  // ------------------------------------------------------------ recording

  sessionStarted(sessionId: string): void {
    if (!this.opts.settings().enabled) return;
    const startedAt = new Date(this.now());
    const model = this.opts.model();
    const host: RecorderHost = {
      // Dated when the session started (what its title says), created at its first words.
      newHeader: (): EntryRecord => ({
        type: 'entry',
        version: FORMAT_VERSION,
        id: newEntryId(new Date(this.now())),
        kind: 'dictation',
        title: `Dictation ${localDateTime(startedAt)}`,
        createdAt: startedAt.toISOString(),
        modelId: model.id,
        modelName: model.name,
        sourcePath: null,
      }),
      fileOf: (id) => this.fileOf(id),
      created: (summary) => this.added(summary),
      closed: (summary) => {
        if (!this.entries.has(summary.id)) return; // deleted meanwhile
        this.entries.set(summary.id, summary);
        this.changed({ change: 'updated', id: summary.id });
      },
      failed: (error, dropped) => {
        this.opts.log.error(`saving dictation ${sessionId} to the history failed${dropped ? ` (${dropped} segments dropped)` : ''}`, error);
        this.opts.notify({
          level: 'warning',
          code: 'HISTORY_WRITE_FAILED',
          message: `This dictation could not be saved to the history (${describeWriteError(error)}). Dictation continues and its text stays on screen.`,
          action: 'Free some disk space, or copy the text now. History can be turned off in Settings.',
        });
      },
    };
    this.recorders.set(sessionId, new DictationRecorder(sessionId, host));
  }

  sessionFinal(event: TranscriptEvent): void {
    this.recorders.get(event.sessionId)?.final(event);
  }

  sessionEnded(sessionId: string, audioSeconds: number | null): void {
    const recorder = this.recorders.get(sessionId);
    if (!recorder) return;
    // Kept until its closed marker is written, so a delete meanwhile waits for the journal to be closed.
    this.track(recorder.end(audioSeconds).finally(() => {
      if (this.recorders.get(sessionId) === recorder) this.recorders.delete(sessionId);
    }));
  }

  /** Saves a finished file transcription; never throws (a failure is a notice). */
  async recordFile(t: FileTranscript): Promise<void> {
    if (!this.opts.settings().enabled) return;
    const created = new Date(this.now());
    const model = this.opts.model();
    const header: EntryRecord = {
      type: 'entry',
      version: FORMAT_VERSION,
      id: newEntryId(created),
      kind: 'file',
      title: path.basename(t.path) || t.path,
      createdAt: created.toISOString(),
      modelId: model.id,
      modelName: model.name,
      sourcePath: t.path,
    };
    try {
      const tally = await writeFileEntry(this.fileOf(header.id), header, t, created);
      this.added(summaryOf(header, tally, { recovered: false, live: false }));
    } catch (error) {
      this.opts.log.error(`saving the transcript of ${t.path} to the history failed`, error);
      this.opts.notify({
        level: 'warning',
        code: 'HISTORY_WRITE_FAILED',
        message: `The transcript of ${header.title} could not be saved to the history (${describeWriteError(error)}). It is shown as usual.`,
        action: 'Free some disk space and transcribe it again, or export it now.',
      });
    }
  }

  /**
   * A meeting starts: the header of its entry and where it goes (the caller creates the journal and the
   * audio folder). Unlike a dictation the entry exists from the start: its audio is worth keeping even
   * before anyone speaks. null when the history is off.
   */
  newMeetingEntry(): { header: EntryRecord; file: string; audioDir: string } | null {
    if (!this.opts.settings().enabled) return null;
    const startedAt = new Date(this.now());
    const model = this.opts.model();
    const header: EntryRecord = {
      type: 'entry',
      version: FORMAT_VERSION,
      id: newEntryId(startedAt),
      kind: 'meeting',
      title: `Meeting ${localDateTime(startedAt)}`,
      createdAt: startedAt.toISOString(),
      modelId: model.id,
      modelName: model.name,
      sourcePath: null,
    };
    return { header, file: this.fileOf(header.id), audioDir: this.audioDirOf(header.id) };
  }

  /** The meeting's journal exists (live); `owner` is told when the entry is deleted meanwhile. */
  meetingStarted(summary: HistoryEntrySummary, owner: MeetingEntryOwner): void {
    this.meetings.set(summary.id, owner);
    this.added(summary);
  }

  /**
   * A recorded meeting transcribed again (meeting/retranscribe.ts): its segments replaced, header, tracks and
   * markers kept, written atomically (the old file stays whole until the new one is in place).
   */
  replaceMeetingSegments(id: string, segments: HistorySegment[]): Promise<HistoryEntry> {
    return this.exclusive(id, () => this.writeMeetingSegments(id, segments));
  }

  private async writeMeetingSegments(id: string, segments: HistorySegment[]): Promise<HistoryEntry> {
    const summary = this.require(id);
    if (summary.kind !== 'meeting' || summary.live) throw new CodedError('BAD_ARGUMENT', `History entry ${id} is not a finished meeting.`);
    let header: EntryRecord | null = null;
    const kept: HistoryRecord[] = [];
    for await (const record of readRecords(this.fileOf(id))) {
      if (record.type === 'entry') header ??= record;
      else if (record.type === 'track' || record.type === 'marker') kept.push(record);
    }
    if (!header) throw new CodedError('IO_ERROR', `The file of history entry ${id} has no header.`);
    const tally = new Tally();
    const lines = [header, ...kept];
    for (const s of segments) {
      const record: SegmentRecord = { type: 'segment', sessionId: 'retranscribed', ...s };
      tally.add(record);
      lines.push(record);
    }
    tally.extendTo(summary.durationSec);
    lines.push({ type: 'closed', at: new Date(this.now()).toISOString(), durationSec: tally.durationSec, recovered: summary.recovered });
    await writeFileAtomic(this.fileOf(id), lines.map(recordLine).join(''));
    const next = summaryOf(header, tally, { recovered: summary.recovered, live: false });
    this.entries.set(id, next);
    this.changed({ change: 'updated', id });
    return this.get(id);
  }

  /**
   * One segment's text corrected (segment-edit.ts keeps the unchanged words' times). The entry file is
   * rewritten atomically with every other line as it was; search, the list's preview and every export read
   * the corrected text from then on. Edits of one entry run one after another.
   */
  editSegment(id: string, segmentId: number, text: string): Promise<HistoryEntry> {
    return this.exclusive(id, () => this.writeSegmentEdit(id, segmentId, text));
  }

  /**
   * A speaker renamed in every segment and word of a meeting (renameSpeaker, shared/diarization.ts): one
   * atomic rewrite, as an edit; giving it a name another speaker has merges the two.
   */
  renameSpeaker(id: string, from: string, to: string): Promise<HistoryEntry> {
    return this.exclusive(id, () => this.rewriteSegments(id, 'rename its speakers once it is stopped', (records) => {
      if (!to.trim()) throw new CodedError('BAD_ARGUMENT', 'A speaker needs a name.');
      if (!speakersOf(records).includes(from)) throw new CodedError('NOT_FOUND', `History entry ${id} has no speaker "${from}".`);
      return renameSpeaker(records, from, to);
    }));
  }

  /** A meeting's words attributed again at its end (meeting-speakers.ts): the segments named get these words. */
  refineSpeakers(id: string, words: ReadonlyMap<number, Word[]>): Promise<HistoryEntry> {
    return this.exclusive(id, () => this.rewriteSegments(id, 'refine it once it is stopped', (segments) =>
      segments.map((r) => {
        const refined = words.get(r.segmentId);
        return refined && refined.length === r.words.length ? { ...r, words: refined } : r;
      })));
  }

  /**
   * Rewrites the segment records of a stopped dictation or meeting (`change` gets them in order and returns
   * them, the same objects where nothing changed: then nothing is written), atomically, every other line as it was.
   */
  private async rewriteSegments(id: string, whenStopped: string, change: (segments: SegmentRecord[]) => SegmentRecord[]): Promise<HistoryEntry> {
    const summary = this.require(id);
    if (summary.live) throw new CodedError('BUSY', `This entry is still being recorded; ${whenStopped}.`);
    const records: HistoryRecord[] = [];
    for await (const record of readRecords(this.fileOf(id))) records.push(record);
    const segments = records.filter((r): r is SegmentRecord => r.type === 'segment');
    const changed = change(segments);
    if (changed.every((r, i) => r === segments[i])) return this.get(id);
    let next = 0;
    const rewritten = records.map((r) => (r.type === 'segment' ? changed[next++]! : r));
    const header = rewritten[0];
    if (header?.type !== 'entry') throw new CodedError('IO_ERROR', `The file of history entry ${id} has no header.`);
    const tally = new Tally();
    for (const record of rewritten.slice(1)) tally.add(record);
    await writeFileAtomic(this.fileOf(id), rewritten.map(recordLine).join(''));
    if (!this.entries.has(id)) return this.get(id);
    this.entries.set(id, summaryOf(header, tally, { recovered: summary.recovered, live: false }));
    this.changed({ change: 'updated', id });
    return this.get(id);
  }

  /** Rewrites of one entry's file (edits, a new transcription) one after another: none reads a file another is replacing. */
  private exclusive(id: string, work: () => Promise<HistoryEntry>): Promise<HistoryEntry> {
    const run = (this.edits.get(id) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.edits.set(id, run);
    void run.finally(() => {
      if (this.edits.get(id) === run) this.edits.delete(id);
    }).catch(() => undefined);
    return run;
  }

  private async writeSegmentEdit(id: string, segmentId: number, text: string): Promise<HistoryEntry> {
    if (this.require(id).kind === 'file') throw new CodedError('NOT_SUPPORTED', "A file's transcript has no segments to correct; export it and edit the file.");
    return this.rewriteSegments(id, 'correct it once it is stopped', (segments) => {
      const i = segments.findIndex((r) => r.segmentId === segmentId);
      if (i < 0) throw new CodedError('NOT_FOUND', `History entry ${id} has no segment ${segmentId}; it may have been transcribed again meanwhile.`);
      return segments.map((r, k) => (k === i ? editSegment(r, text) : r));
    });
  }

  /** The meeting's closed marker is written. */
  meetingEnded(summary: HistoryEntrySummary): void {
    if (!this.meetings.delete(summary.id)) return; // deleted meanwhile
    this.entries.set(summary.id, summary);
    this.changed({ change: 'updated', id: summary.id });
  }

  private added(summary: HistoryEntrySummary): void {
    this.entries.set(summary.id, summary);
    this.changed({ change: 'added', id: summary.id });
    this.track(this.prune());
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => this.opts.log.warn('history upkeep failed', error));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Resolves when everything asked of the history so far is on disk (tests, shutdown). */
  async settled(): Promise<void> {
    while (true) {
      const pending = [...this.background, ...[...this.recorders.values()].map((r) => r.idle())];
      await Promise.all(pending);
      await this.index.idle();
      if (this.background.size === 0 && [...this.recorders.values()].every((r) => r.isIdle)) return;
    }
  }

  /** Persists the index, then tells the renderer. */
  private changed(change: HistoryChange): void {
    this.index.save().catch((error: unknown) => this.opts.log.warn('cannot write the history index (it is rebuilt at the next start)', error));
    this.opts.emit(change);
  }

  /** Settings changed: off stops the sessions being recorded (their entries are closed); retention applies at once. */
  settingsChanged(next: HistorySettings, previous: HistorySettings): void {
    if (!next.enabled && previous.enabled) {
      for (const id of this.recorders.keys()) this.sessionEnded(id, null);
    }
    if (next.keepDays !== previous.keepDays || next.maxEntries !== previous.maxEntries) this.track(this.prune());
  }

  // ------------------------------------------------------------ queries

  /** The index's summary, with the live counters of a session still being recorded. */
  private current(summary: HistoryEntrySummary): HistoryEntrySummary {
    if (!summary.live) return summary;
    for (const recorder of this.recorders.values()) {
      if (recorder.entryId === summary.id) return recorder.summary() ?? summary;
    }
    return summary;
  }

  async list(request: HistoryListRequest = {}): Promise<HistoryList> {
    const needle = request.query?.trim().toLowerCase() ?? '';
    const candidates = [...this.entries.values()]
      .filter((e) => !request.kind || e.kind === request.kind)
      .sort(newestFirst)
      .map((e) => this.current(e));
    let matches = candidates;
    if (needle) {
      matches = [];
      // One entry file at a time, line by line: memory stays bounded however large the history is.
      for (const entry of candidates) {
        const quick = entry.title.toLowerCase().includes(needle) || entry.preview.toLowerCase().includes(needle);
        if (quick || (await entryContains(this.fileOf(entry.id), needle).catch(() => false))) matches.push(entry);
      }
    }
    const offset = request.offset ?? 0;
    return { entries: matches.slice(offset, offset + (request.limit ?? DEFAULT_PAGE)), total: matches.length };
  }

  private require(id: string): HistoryEntrySummary {
    const entry = this.entries.get(id);
    if (!entry) throw new CodedError('NOT_FOUND', `There is no history entry ${id}; it may have been deleted.`);
    return entry;
  }

  /**
   * An entry's kind, state and audio tracks for the media player, read without its transcript. A closed
   * meeting's tracks never change, so they are read once and shared by every request (a player seeking
   * sends many in parallel; each used to parse the whole meeting).
   */
  async audioOf(id: string): Promise<EntryAudio> {
    const summary = this.current(this.require(id));
    if (summary.kind !== 'meeting' || summary.live) return { kind: summary.kind, live: summary.live };
    let tracks = this.audioTracks.get(id);
    if (!tracks) {
      tracks = readEntryAudio(this.fileOf(id));
      if (this.audioTracks.size >= AUDIO_TRACKS_CACHED) this.audioTracks.delete(this.audioTracks.keys().next().value!);
      this.audioTracks.set(id, tracks);
      tracks.catch(() => this.audioTracks.delete(id));
    }
    try {
      return { kind: summary.kind, live: false, audio: await tracks };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new CodedError('NOT_FOUND', `The file of history entry ${id} is gone (deleted outside the app).`);
    }
  }

  async get(id: string): Promise<HistoryEntry> {
    const summary = this.current(this.require(id));
    try {
      return await readEntry(this.fileOf(id), summary);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.entries.delete(id);
      this.changed({ change: 'removed', id });
      throw new CodedError('NOT_FOUND', `The file of history entry ${id} is gone (deleted outside the app).`);
    }
  }

  // ------------------------------------------------------------ removal

  async delete(id: string): Promise<void> {
    this.require(id);
    await this.remove([id]);
    this.changed({ change: 'removed', id });
  }

  async clear(): Promise<void> {
    for (const recorder of this.recorders.values()) await recorder.discard();
    this.recorders.clear();
    for (const meeting of this.meetings.values()) await meeting.discard();
    this.meetings.clear();
    this.entries.clear();
    this.audioTracks.clear();
    await Promise.all([...this.edits.values()].map((rewrite) => rewrite.catch(() => undefined)));
    await fs.rm(path.join(this.opts.dir, 'audio'), { recursive: true, force: true });
    // Everything in the folder, unreadable files included: "clear" means nothing is left.
    for (const name of await fs.readdir(this.entriesDir).catch(() => [])) {
      await fs.rm(path.join(this.entriesDir, name), { force: true });
    }
    this.changed({ change: 'cleared', id: null });
  }

  /** Applies the retention settings now. */
  async prune(): Promise<void> {
    const ids = entriesToPrune([...this.entries.values()], this.opts.settings(), this.now());
    if (!ids.length) return;
    this.opts.log.info(`retention: removing ${ids.length} history entr${ids.length === 1 ? 'y' : 'ies'}`);
    await this.remove(ids);
    this.changed({ change: 'removed', id: ids.length === 1 ? ids[0]! : null });
  }

  private async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      for (const [sessionId, recorder] of this.recorders) {
        if (recorder.entryId !== id) continue;
        this.recorders.delete(sessionId);
        await recorder.discard();
      }
      const meeting = this.meetings.get(id);
      if (meeting) {
        this.meetings.delete(id);
        await meeting.discard();
      }
      this.entries.delete(id);
      this.audioTracks.delete(id);
      // A rewrite in flight (a correction, a new transcription) renames its file into place when it ends: after it.
      await this.edits.get(id)?.catch(() => undefined);
      await fs.rm(this.fileOf(id), { force: true });
      // A meeting's audio goes with it (nothing there for other kinds).
      await fs.rm(this.audioDirOf(id), { recursive: true, force: true });
    }
  }

  /** Shutdown: sessions still recorded are closed normally (this is not a crash), the index is written. */
  async dispose(): Promise<void> {
    for (const id of this.recorders.keys()) this.sessionEnded(id, null);
    await this.settled();
  }
}
