// Which word of an entry is being heard at a meeting time, and where a
// source's audio time sits in meeting time. Pure (the player and the tests
// share it). A word is current from its start until the next word of its
// segment starts, never past its segment's end; where two speakers' segments
// overlap, the later-starting one wins (one highlight, not two).
import type { HistoryMediaSource, HistorySegment } from '../../../app/ipc/contract.js';

/** "segment index:word index" of the word heard at `t` (meeting seconds), or null between words. */
export function currentWordKey(segments: readonly HistorySegment[], t: number | null): string | null {
  if (t === null) return null;
  let found: string | null = null;
  let foundStart = -Infinity;
  segments.forEach((s, si) => {
    if (t < s.start || t > s.end || s.start < foundStart) return;
    let wi = -1;
    for (let i = 0; i < s.words.length && s.words[i]!.start <= t; i += 1) wi = i;
    if (wi < 0) return;
    found = `${si}:${wi}`;
    foundStart = s.start;
  });
  return found;
}

export function meetingTimeOf(source: Pick<HistoryMediaSource, 'offsetSec'>, audioTime: number): number {
  return audioTime + source.offsetSec;
}

/** Where the audio element must seek to hear meeting time `t` (0 when the source starts later). */
export function audioTimeOf(source: Pick<HistoryMediaSource, 'offsetSec' | 'durationSec'>, t: number): number {
  return Math.min(Math.max(0, t - source.offsetSec), source.durationSec);
}
