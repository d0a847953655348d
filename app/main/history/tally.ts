// What the index keeps about an entry's text without keeping the text: word
// and character counts, the first ~200 characters, the devices and the audio
// length. Fed piece by piece (a dictation's finals as they come, or a file
// entry's lines as they are read back), so its memory is constant however
// long the session grows.
import type { HistoryEntrySummary } from '../../ipc/contract.js';
import type { EntryRecord, HistoryRecord } from './records.js';

export const PREVIEW_CHARS = 200;

export class Tally {
  wordCount = 0;
  /** Characters of the text as history:get joins it (pieces separated by one space). */
  characterCount = 0;
  segmentCount = 0;
  durationSec = 0;
  private head = '';
  private readonly deviceSet = new Set<string>();

  /** Counts what a record adds (a segment, a file's text, the length in a closed marker). */
  add(record: HistoryRecord): void {
    if (record.type === 'segment') {
      this.addText(record.text);
      this.addDevices(record.devicesRan);
      this.extendTo(record.end);
      this.segmentCount += 1;
    } else if (record.type === 'text') {
      this.addText(record.text);
      this.addDevices(record.devicesRan);
      this.extendTo(record.durationSec);
    } else if (record.type === 'closed') {
      this.extendTo(record.durationSec);
    }
  }

  /** One piece of text (a segment's, or a file's whole text); empty pieces count as nothing. */
  addText(text: string): void {
    if (!text) return;
    this.characterCount += (this.characterCount > 0 ? 1 : 0) + text.length;
    const trimmed = text.trim();
    if (trimmed) this.wordCount += trimmed.split(/\s+/).length;
    // One character more than the preview shows, to know whether it was cut.
    if (this.head.length <= PREVIEW_CHARS && trimmed) this.head = `${this.head ? `${this.head} ` : ''}${trimmed}`.slice(0, PREVIEW_CHARS + 1);
  }

  addDevices(devices: readonly string[]): void {
    for (const d of devices) this.deviceSet.add(d);
  }

  extendTo(seconds: number): void {
    if (seconds > this.durationSec) this.durationSec = seconds;
  }

  get devices(): string[] {
    return [...this.deviceSet];
  }

  /** The first PREVIEW_CHARS characters, cut at a word when the text goes on. */
  get preview(): string {
    if (this.head.length <= PREVIEW_CHARS) return this.head;
    const cut = this.head.slice(0, PREVIEW_CHARS);
    const space = cut.lastIndexOf(' ');
    return `${space > PREVIEW_CHARS / 2 ? cut.slice(0, space) : cut}…`;
  }
}

/** The index's view of an entry: its header, what was tallied of its content, and its state. */
export function summaryOf(
  header: EntryRecord,
  tally: Tally,
  state: { recovered: boolean; live: boolean },
): HistoryEntrySummary {
  return {
    id: header.id,
    kind: header.kind,
    title: header.title,
    createdAt: header.createdAt,
    durationSec: tally.durationSec,
    wordCount: tally.wordCount,
    characterCount: tally.characterCount,
    preview: tally.preview,
    modelId: header.modelId,
    modelName: header.modelName,
    devices: tally.devices,
    segmentCount: tally.segmentCount,
    sourcePath: header.sourcePath,
    recovered: state.recovered,
    live: state.live,
  };
}
