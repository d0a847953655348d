// A file job's windows from VAD speech segments: silent stretches between segments are skipped, nearby
// segments share a window up to `maxSamples`, and a segment longer than that is cut at its quietest
// points (windows.ts, the engine's own planner). Window starts sit on the encoder-frame grid (`align`
// samples), so a window's word and token times move into the whole file's timeline by an exact
// number of frames.
import type { SampleSegment } from '../shared/vad-segments.js';
import { WindowPlanner, type SampleRange } from './windows.js';

/** Silence shorter than this between two segments stays inside one window (context helps the decoder). */
const JOIN_GAP_SEC = 1;

export function planSpeechWindows(
  pcm: Float32Array, segments: readonly SampleSegment[], sampleRate: number, maxSamples: number, align: number,
): SampleRange[] {
  const step = Math.max(1, align);
  const joinGap = JOIN_GAP_SEC * sampleRate;
  const groups: SampleRange[] = [];
  for (const s of segments) {
    const begin = s.start - (s.start % step);
    const end = Math.min(pcm.length, s.end);
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
    const planner = new WindowPlanner(sampleRate, maxSamples, step);
    planner.push(pcm.subarray(g.begin, g.end));
    for (const w of planner.finish()) {
      out.push({ begin: g.begin + w.begin, end: g.begin + w.end });
    }
  }
  return out.filter((w) => w.end > w.begin);
}
