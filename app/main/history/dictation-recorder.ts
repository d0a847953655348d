// Records one dictation session as a history entry while it runs. Finals go
// into a small backlog and are written to the entry's journal one by one, in
// order, each on disk before the next (journal.ts). What stays in memory is
// the backlog of finals not yet written (normally empty or one; bounded) and
// the tally for the index, never the session's text.
//
// The entry is created at the first final with text, so a session in which
// nothing was said leaves nothing behind; the empty finals before it are
// written first, so the entry's segments are exactly the finals emitted. A
// write that fails (disk full) keeps its final in the backlog for the next
// attempt and is reported once per session; the dictation goes on.
import type { HistoryEntrySummary, TranscriptEvent } from '../../ipc/contract.js';
import { Journal } from './journal.js';
import type { EntryRecord, SegmentRecord } from './records.js';
import { summaryOf, Tally } from './tally.js';

/** Finals kept while they cannot be written; past this the oldest are dropped (and counted in the log). */
export const MAX_BACKLOG = 1024;

export interface RecorderHost {
  /** The header of the entry about to be created (id, title, model, time). */
  newHeader(): EntryRecord;
  fileOf(id: string): string;
  /** The journal exists with its header: the entry can be listed. */
  created(summary: HistoryEntrySummary): void;
  /** The closed marker is written. */
  closed(summary: HistoryEntrySummary): void;
  /** A write failed (first failure of this session only). */
  failed(error: unknown, dropped: number): void;
}

export class DictationRecorder {
  private readonly tally = new Tally();
  private readonly backlog: SegmentRecord[] = [];
  private header: EntryRecord | null = null;
  private journal: Journal | null = null;
  private work: Promise<void> = Promise.resolve();
  private ended = false;
  private discarded = false;
  private reported = false;
  private dropped = 0;
  private pending = 0;

  constructor(readonly sessionId: string, private readonly host: RecorderHost) {}

  /** The entry's id once it exists. */
  get entryId(): string | null {
    return this.journal ? (this.header?.id ?? null) : null;
  }

  summary(): HistoryEntrySummary | null {
    return this.header && this.journal ? summaryOf(this.header, this.tally, { recovered: false, live: !this.ended }) : null;
  }

  /** Resolves when the writes asked for so far are done (or failed). */
  idle(): Promise<void> {
    return this.work;
  }

  /** No write is waiting (the backlog is empty and nothing is queued). */
  get isIdle(): boolean {
    return this.pending === 0;
  }

  /** Finals not yet on disk (memory the recorder holds beyond its tally). */
  get backlogLength(): number {
    return this.backlog.length;
  }

  /** A final was emitted (called synchronously from the session's emit; never throws). */
  final(event: TranscriptEvent): void {
    if (this.ended) return;
    const record: SegmentRecord = {
      type: 'segment',
      sessionId: event.sessionId,
      segmentId: event.segmentId,
      start: event.start,
      end: event.end,
      text: event.text,
      devicesRan: event.devicesRan,
      words: event.words,
      ...(event.phrasesFired?.length ? { phrasesFired: event.phrasesFired } : {}),
    };
    this.tally.add(record);
    this.backlog.push(record);
    if (this.backlog.length > MAX_BACKLOG) {
      this.backlog.shift();
      this.dropped += 1;
    }
    // schedule() never rejects: a failed write is reported, and the next final tries again.
    void this.schedule(() => this.flush());
  }

  /** The session ended: what is left is written, then the closed marker. `audioSeconds`: the session's length when known. */
  end(audioSeconds: number | null): Promise<void> {
    if (this.ended) return this.work;
    this.ended = true;
    if (audioSeconds !== null) this.tally.extendTo(audioSeconds);
    return this.schedule(async () => {
      await this.flush();
      if (!this.journal || !this.header) return;
      await this.journal.close({ type: 'closed', at: new Date().toISOString(), durationSec: this.tally.durationSec, recovered: false });
      const summary = this.summary();
      if (summary) this.host.closed(summary);
    });
  }

  /** The entry is being deleted: nothing more is written, the file is closed (the caller removes it). */
  discard(): Promise<void> {
    this.ended = true;
    this.discarded = true;
    this.backlog.length = 0;
    return this.schedule(async () => {
      await this.journal?.abandon();
    });
  }

  private schedule(run: () => Promise<void>): Promise<void> {
    this.pending += 1;
    const next = this.work
      .then(run)
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        this.pending -= 1;
      });
    this.work = next;
    return next;
  }

  private async flush(): Promise<void> {
    if (!this.journal) {
      // Nothing said yet: no entry for silence (the empty finals wait, bounded).
      if (!this.backlog.some((r) => r.text.trim())) return;
      this.header ??= this.host.newHeader();
      this.journal = await Journal.create(this.host.fileOf(this.header.id), this.header);
      const summary = this.summary();
      if (summary && !this.discarded) this.host.created(summary);
    }
    while (this.backlog.length) {
      await this.journal.append(this.backlog[0]!);
      this.backlog.shift();
    }
  }

  private report(error: unknown): void {
    if (this.reported) return;
    this.reported = true;
    this.host.failed(error, this.dropped);
  }
}
