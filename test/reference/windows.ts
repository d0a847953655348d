// The long-audio cut points as one pass over the whole clip, the plain statement of the rule (it was the
// engine's C++ plan_windows, line by line, before native/windows.ts became the one planner): the reference
// native/windows.ts's streamed WindowPlanner is checked against (test/unit/app/windowed-wav.test.ts). A clip longer than `maxSamples` is cut at the
// quietest 200 ms (10 ms hops, smoothed over 20 hops) of each window's second half, on the encoder-frame
// grid (`align` samples). Same arithmetic: doubles over float samples, same summation order.
import type { SampleRange } from '../../native/windows.js';

export function planWindows(pcm: Float32Array, sampleRate: number, maxSamples: number, align: number): SampleRange[] {
  const n = pcm.length;
  if (align <= 0) align = 1;
  if (maxSamples <= 0 || n <= maxSamples) return [{ begin: 0, end: n }];
  const hop = Math.max(1, Math.trunc(sampleRate / 100));
  const frames = Math.ceil(n / hop);
  const energy = new Float64Array(frames);
  for (let f = 0; f < frames; f += 1) {
    const b = f * hop;
    const e = Math.min(n, b + hop);
    let s = 0;
    for (let i = b; i < e; i += 1) {
      // double(pcm[i]) * pcm[i]: float widened, product in double
      const x = pcm[i]!;
      s += x * x;
    }
    energy[f] = s / (e - b);
  }
  const span = 20;
  const prefix = new Float64Array(frames + 1);
  for (let f = 0; f < frames; f += 1) prefix[f + 1] = prefix[f]! + energy[f]!;
  const smoothed = (f: number): number => {
    const b = f >= span / 2 ? f - span / 2 : 0;
    const e = Math.min(frames, b + span);
    return (prefix[e]! - prefix[b]!) / (e - b);
  };
  const out: SampleRange[] = [];
  let start = 0;
  while (n - start > maxSamples) {
    const lo = Math.trunc((start + Math.trunc(maxSamples / 2)) / hop);
    const hi = Math.min(frames - 1, Math.trunc((start + maxSamples) / hop) - 1);
    let best = hi;
    let bestEnergy = smoothed(hi);
    for (let f = lo; f <= hi; f += 1) {
      const e = smoothed(f);
      if (e < bestEnergy) {
        bestEnergy = e;
        best = f;
      }
    }
    let cut = Math.min(n, best * hop + Math.trunc(hop / 2));
    cut -= cut % align;
    if (cut <= start) cut = Math.min(n, start + maxSamples - (maxSamples % align));
    out.push({ begin: start, end: cut });
    start = cut;
  }
  out.push({ begin: start, end: n });
  return out;
}

