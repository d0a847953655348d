// A file job's windows from VAD speech segments: silent stretches between segments are skipped, segments
// closer than `joinGapSec` share a window up to `maxSamples` (the file job joins none: bench:vad measured
// the noise between joined segments adding words), and a segment longer than that is cut at its quietest
// points (native/windows.ts, the one planner, on the encoder-frame grid of `align` samples). A window
// starts on the 10 ms hop grid (so a long one's energies are exactly the file's hops), not on the encoder
// frame grid: moving the start back to that grid put up to one frame (80 ms) of the gap in front of the
// first word, and audio in front of speech is what made the digits model hear an extra word at onsets
// (bench:vad). Word and token times move into the whole file's timeline by the window's start in seconds
// (token frame indices by the nearest frame). Planned from the file's hop energies (recorded while it was
// read), never its samples.
import type { SampleSegment } from '../shared/vad-segments.js';
import type { HopEnergies } from './hop-energies.js';
import { WindowPlanner, type SampleRange } from '../../native/windows.js';

export function planSpeechWindows(
  file: HopEnergies, segments: readonly SampleSegment[], sampleRate: number, maxSamples: number, align: number, joinGapSec = 0,
): SampleRange[] {
  const step = Math.max(1, align);
  const joinGap = joinGapSec * sampleRate;
  const groups: SampleRange[] = [];
  for (const s of segments) {
    const begin = s.start - (s.start % file.hop);
    const end = Math.min(file.samples, s.end);
    const last = groups.at(-1);
    if (last && begin - last.end < joinGap && end - last.begin <= maxSamples) {
      last.end = Math.max(last.end, end);
    } else {
      // Moved back to the hop grid, a start may fall before the last window's end (a narrow gap the pads
      // shared ends that one exactly where this one starts): that window gives those few samples up, so no
      // audio is decoded twice (its words neither).
      if (last && begin < last.end) last.end = begin;
      groups.push({ begin, end, onset: true });
    }
  }
  const out: SampleRange[] = [];
  for (const g of groups) {
    if (g.end - g.begin <= maxSamples) {
      out.push(g);
      continue;
    }
    // One long stretch of speech: the engine's quietest-point cuts inside it, moved to its place in the file
    // (its start is on the hop grid, so its hops are the file's).
    const planner = new WindowPlanner(sampleRate, maxSamples, step);
    const first = g.begin / file.hop;
    planner.pushHopEnergies(file.energies.subarray(first, Math.ceil(g.end / file.hop)), g.end - g.begin);
    // Only the first piece begins at the speech's onset; the others at the planner's quietest points inside it.
    for (const w of planner.finish()) {
      out.push({ begin: g.begin + w.begin, end: g.begin + w.end, ...(w.begin === 0 ? { onset: true } : {}) });
    }
  }
  return out.filter((w) => w.end > w.begin);
}
