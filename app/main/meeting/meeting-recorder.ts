// A meeting's History entry while it records: the entry journal (history's
// Journal: one line, fdatasync, next) created at the start, then each track's
// `track` record, every final (a `segment` with its speaker) and marker as it
// comes, and the closed marker at the end. So a crash loses at most the line
// being written; the start-up recovery closes the journal as "recovered".
// Records wait in a bounded backlog while a write runs (normally one); what
// the recorder keeps otherwise is the tally for the index, not the text.
import type { HistoryEntrySummary } from '../../ipc/contract.js';
import { Journal } from '../history/journal.js';
import type { EntryRecord, MarkerRecord, SegmentRecord, TrackRecord } from '../history/records.js';
import { summaryOf, Tally } from '../history/tally.js';

/** Records kept while writes fail or lag; past this the oldest are dropped (counted). */
export const MAX_BACKLOG = 1024;

type MeetingRecord = SegmentRecord | MarkerRecord | TrackRecord;

export class MeetingRecorder {
  private readonly tally = new Tally();
  private readonly backlog: { record: MeetingRecord; written: () => void }[] = [];
  private work: Promise<void> = Promise.resolve();
  private flushing = false;
  private ended = false;
  dropped = 0;
  /** The first write error (the meeting goes on; the caller reports it once). */
  error: Error | null = null;

  private constructor(readonly header: EntryRecord, private readonly journal: Journal, private readonly onError: (error: Error) => void) {}

  static async create(file: string, header: EntryRecord, onError: (error: Error) => void): Promise<MeetingRecorder> {
    return new MeetingRecorder(header, await Journal.create(file, header), onError);
  }

  summary(live: boolean): HistoryEntrySummary {
    return summaryOf(this.header, this.tally, { recovered: false, live });
  }

  /**
   * Queues a record; resolves once it is on disk (fdatasync'ed), or at once when writing failed (it stays
   * queued for the next attempt) or it was dropped. The meeting emits a final only then, so every final
   * the UI saw survives a crash.
   */
  add(record: MeetingRecord): Promise<void> {
    if (this.ended) return Promise.resolve();
    if (record.type === 'segment') this.tally.add(record);
    const done = new Promise<void>((resolve) => this.backlog.push({ record, written: resolve }));
    if (this.backlog.length > MAX_BACKLOG) {
      this.backlog.shift()!.written();
      this.dropped += 1;
    }
    if (this.error) this.backlog.at(-1)!.written();
    if (!this.flushing) this.work = this.work.then(() => this.flush());
    return done;
  }

  /** Resolves when everything added so far is on disk (or failed). */
  idle(): Promise<void> {
    return this.work;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.backlog.length) {
        const next = this.backlog[0]!;
        try {
          await this.journal.append(next.record);
          this.backlog.shift();
          next.written();
        } catch (error) {
          if (!this.error) {
            this.error = error as Error;
            this.onError(error as Error);
          }
          for (const queued of this.backlog) queued.written();
          return; // kept in the backlog; the next record tries again
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Writes what is left and the closed marker. */
  close(durationSec: number): Promise<HistoryEntrySummary> {
    this.ended = true;
    this.tally.extendTo(durationSec);
    const done = this.work.then(async () => {
      await this.flush();
      await this.journal.close({ type: 'closed', at: new Date().toISOString(), durationSec: this.tally.durationSec, recovered: false });
      return this.summary(false);
    });
    this.work = done.then(() => undefined, () => undefined);
    return done;
  }

  /** The entry is being deleted: nothing more is written. */
  async abandon(): Promise<void> {
    this.ended = true;
    for (const queued of this.backlog.splice(0)) queued.written();
    await this.work;
    await this.journal.abandon();
  }
}
