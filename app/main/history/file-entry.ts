// A finished file transcription as an entry file: header, text, one line per
// word, closed marker, written at once through the atomic-write module (temp
// file, fsync, rename), so an entry file of a file is whole or absent.
import type { FileTranscript } from '../../ipc/contract.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { recordLine, type EntryRecord, type TextRecord } from './records.js';
import { Tally } from './tally.js';

/** Writes the entry; returns the tally of its text for the index. */
export async function writeFileEntry(file: string, header: EntryRecord, t: FileTranscript, closedAt: Date): Promise<Tally> {
  const text: TextRecord = {
    type: 'text', text: t.text, durationSec: t.durationSec, devicesRan: t.devicesRan, elapsedMs: t.elapsedMs,
    ...(t.phrasesFired?.length ? { phrasesFired: t.phrasesFired } : {}),
    ...(t.speechCut ? { speechCut: t.speechCut } : {}),
  };
  const lines = [
    recordLine(header),
    recordLine(text),
    ...t.words.map((w) => recordLine({ type: 'word', text: w.text, start: w.start, end: w.end, confidence: w.confidence })),
    recordLine({ type: 'closed', at: closedAt.toISOString(), durationSec: t.durationSec, recovered: false }),
  ];
  await writeFileAtomic(file, lines.join(''));
  const tally = new Tally();
  tally.add(text);
  return tally;
}
