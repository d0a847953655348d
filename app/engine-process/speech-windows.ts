// A file job's windows from VAD speech segments: silent stretches between segments are skipped, segments
// closer than `joinGapSec` share a window up to `maxSamples` (the file job joins none: bench:vad measured
// the noise between joined segments adding words), and a segment longer than that is cut at its quietest
// points (native/windows.ts, the one planner). Window starts sit on the encoder-frame grid (`align`
// samples), so a window's word and token times move into the whole file's timeline by an exact
// number of frames. Planned from the file's hop energies (recorded while it was read), never its samples.
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
    const begin = s.start - (s.start % step);
    const end = Math.min(file.samples, s.end);
    const last = groups.at(-1);
    if (last && begin - last.end < joinGap && end - last.begin <= maxSamples) last.end = Math.max(last.end, end);
    else if (last && begin < last.end) last.end = Math.max(last.end, end);  // overlapping after the grid snap
    else groups.push({ begin, end });
  }
  const out: SampleRange[] = [];
  for (const g of groups) {
    if (g.end - g.begin <= maxSamples) {
      out.push(g);
      continue;
    }
    // One long stretch of speech: the engine's quietest-point cuts inside it, moved to its place in the file.
    // Its hops are the file's when its start is on the hop grid (every Parakeet model: a frame is 8 hops);
    // otherwise the nearest hop's, a cut at most one hop (10 ms) from the samples' plan.
    const planner = new WindowPlanner(sampleRate, maxSamples, step);
    const first = Math.round(g.begin / file.hop);
    planner.pushHopEnergies(file.energies.subarray(first, Math.ceil(g.end / file.hop)), g.end - g.begin);
    for (const w of planner.finish()) {
      out.push({ begin: g.begin + w.begin, end: g.begin + w.end });
    }
  }
  return out.filter((w) => w.end > w.begin);
}
