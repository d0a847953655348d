// What a quick CPU measurement means for the first-run proposals. The engine runs one feed-forward-sized
// Q8_0 matmul (probeSpeed); its rate predicts the whole pipeline's speed on the CPU well enough for a
// class: measured on the build machine, 110M Q8_0 runs at about rate/4.5 × real time and the 0.6B at
// about rate/16 × (README: 16.5× and 4.6× at 62–89 GFLOP/s, 2 threads).
import type { MachineSpeed } from './types.js';

const PER_X_REALTIME = { 'english-dictation': 4.5, multilingual: 16 } as const;

export function machineSpeed(gflops: number, threads: number): MachineSpeed {
  const realTime = {
    'english-dictation': Math.round((gflops / PER_X_REALTIME['english-dictation']) * 10) / 10,
    multilingual: Math.round((gflops / PER_X_REALTIME.multilingual) * 10) / 10,
  };
  // Live dictation needs a segment decoded well within a pause: ≥ 3× real time is comfortable.
  const speedClass = realTime.multilingual >= 3 ? 'fast' : realTime['english-dictation'] >= 3 ? 'fine' : 'slow';
  return { gflops: Math.round(gflops * 10) / 10, threads, realTime, speedClass };
}
