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
  private readonly backlog: MeetingRecord[] = [];
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

  add(record: MeetingRecord): void {
    if (this.ended) return;
    if (record.type === 'segment') this.tally.add(record);
    this.backlog.push(record);
    if (this.backlog.length > MAX_BACKLOG) {
      this.backlog.shift();
      this.dropped += 1;
    }
    if (!this.flushing) this.work = this.work.then(() => this.flush());
  }

  /** Resolves when everything added so far is on disk (or failed). */
  idle(): Promise<void> {
    return this.work;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.backlog.length) {
        try {
          await this.journal.append(this.backlog[0]!);
          this.backlog.shift();
        } catch (error) {
          if (!this.error) {
            this.error = error as Error;
            this.onError(error as Error);
          }
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
    this.backlog.length = 0;
    await this.work;
    await this.journal.abandon();
  }
}
