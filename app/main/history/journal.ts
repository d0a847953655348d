// The append-only journal of a dictation entry. Each record is appended and
// fsync'ed (fdatasync) before the next is written: finals come at most a few
// per second (each ends at a pause), an fdatasync costs a few milliseconds
// and runs on libuv's thread pool, and nothing on the dictation path waits for
// it. So a crash of main (or of the machine) loses at most the line being
// written; batching would risk the last few finals for no gain at this rate.
//
// A failed write (disk full) is cut back to the last whole line, so a later
// append never glues itself onto a torn one, and the error goes to the caller
// (a notice; the dictation itself goes on).
import fs from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from '../util/atomic-file.js';
import { writeAll } from '../util/write-all.js';
import { recordLine, type ClosedRecord, type EntryRecord, type HistoryRecord } from './records.js';

export class Journal {
  private size: number;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(readonly file: string, private readonly handle: fs.FileHandle, size: number) {
    this.size = size;
  }

  /** Creates the file with its header, durably (the folder entry included); fails if it exists. */
  static async create(file: string, header: EntryRecord): Promise<Journal> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const handle = await fs.open(file, 'ax');
    const journal = new Journal(file, handle, 0);
    try {
      await journal.write(recordLine(header));
      await fsyncDir(path.dirname(file));
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.rm(file, { force: true }).catch(() => undefined);
      throw error;
    }
    return journal;
  }

  /** Appends one record (in call order); resolves once it is on disk. */
  append(record: HistoryRecord): Promise<void> {
    return this.enqueue(() => this.write(recordLine(record)));
  }

  /** Appends the closed marker and closes the file. */
  close(marker: ClosedRecord): Promise<void> {
    return this.enqueue(async () => {
      try {
        await this.write(recordLine(marker));
      } finally {
        await this.release();
      }
    });
  }

  /** Closes the file without a marker (the entry is being deleted), after the writes already queued. */
  abandon(): Promise<void> {
    return this.enqueue(() => this.release());
  }

  private enqueue(run: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => (this.closed ? undefined : run()));
    // A failed write is reported to its caller; later writes still run.
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async write(line: string): Promise<void> {
    try {
      await writeAll(this.handle, Buffer.from(line));
      await this.handle.datasync();
      this.size += Buffer.byteLength(line);
    } catch (error) {
      await this.handle.truncate(this.size).catch(() => undefined);
      throw error;
    }
  }

  private async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** Appends a closed marker to a journal a previous run left open, on a line of its own even if its last line was torn. */
export async function closeLeftOpen(file: string, marker: ClosedRecord): Promise<void> {
  const handle = await fs.open(file, 'r+');
  try {
    const { size } = await handle.stat();
    const last = Buffer.alloc(1);
    if (size > 0) await handle.read(last, 0, 1, size - 1);
    const line = `${size > 0 && last[0] !== 0x0a ? '\n' : ''}${recordLine(marker)}`;
    await handle.write(line, size);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
