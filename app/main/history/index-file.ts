// <userData>/history/index.json: the list the History view shows, one
// summary per entry, so listing never opens the entry files. It is only a
// cache of what the entry files say: written atomically (temp + fsync +
// rename) when an entry is added, closed or removed, and rebuilt from the
// entry files when it is missing or does not parse. Counters of a dictation
// still being recorded are not written per final (that would rewrite the
// whole index every few seconds); after a crash, recovery reads the journal.
import fs from 'node:fs/promises';
import type { HistoryEntrySummary } from '../../ipc/contract.js';
import {
  arrayOf, bool, HISTORY_KINDS, historyId, isPlainObject, nullable, num, object, oneOf, str, type Check,
} from '../../ipc/validate.js';
import { writeFileAtomic } from '../util/atomic-file.js';

const INDEX_VERSION = 1;

const name = str({ max: 4096 });
const count = num(0, Number.MAX_SAFE_INTEGER, true);

const summaryCheck: Check<HistoryEntrySummary> = object<HistoryEntrySummary>({
  id: historyId,
  kind: oneOf(HISTORY_KINDS),
  title: name,
  createdAt: str({ max: 64 }),
  durationSec: num(0, 1e9, false),
  wordCount: count,
  characterCount: count,
  preview: str({ max: 1000, allowEmpty: true }),
  modelId: nullable(name),
  modelName: nullable(name),
  devices: arrayOf(str({ max: 128 }), 64),
  segmentCount: count,
  sourcePath: nullable(name),
  recovered: bool,
  live: bool,
});

/** The index's entries, or null when there is no index or it cannot be trusted (then it is rebuilt). */
export async function loadIndex(file: string): Promise<HistoryEntrySummary[] | null> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return null;
  }
  if (!isPlainObject(raw) || raw.version !== INDEX_VERSION) return null;
  try {
    return arrayOf(summaryCheck)(raw.entries, 'entries');
  } catch {
    return null;
  }
}

/**
 * Writes the index, one write at a time. Saves asked for while one is waiting share it; a save asked for
 * while one is being written runs after it, with the entries as they are then.
 */
export class IndexWriter {
  private chain: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;

  constructor(private readonly file: string, private readonly snapshot: () => HistoryEntrySummary[]) {}

  save(): Promise<void> {
    if (this.waiting) return this.waiting;
    const run = this.chain.then(() => {
      this.waiting = null;
      return writeFileAtomic(this.file, `${JSON.stringify({ version: INDEX_VERSION, entries: this.snapshot() })}\n`);
    });
    this.waiting = run;
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves when every save asked for so far has finished (failed ones included). */
  idle(): Promise<void> {
    return this.chain;
  }
}
