// `npm run bench -- --profile`: one encoder run timed node by node, by ggml op
// and by model part (matmuls by the weight's role), so the next bottleneck is
// visible. Profiling runs each node on its own, so its total is a little above
// an unprofiled run's; shares are what to read.
import { readFileSync } from 'node:fs';
import { Model, type NodeTime, type WeightType } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';

export interface ProfileRun {
  file: string;
  threads: number;
  seconds: number;
  weightType: string;
  encoderMs: number;
  profiledMs: number;
  byOp: Record<string, NodeTime>;
  byPart: Record<string, NodeTime>;
}

export async function profileEncoder(file: string, audioPath: string, threads: number, weightType: WeightType): Promise<ProfileRun> {
  const audio = decodeWav(new Uint8Array(readFileSync(audioPath)));
  const model = await Model.load(file, { threads, weightType });
  try {
    await model.transcribe(audio.samples);  // warm-up: buffers, first touch
    const plain = await model.transcribe(audio.samples);
    const r = await model.transcribe(audio.samples, { profile: true });
    const profile = r.profile;
    if (!profile) throw new Error('profile: the engine returned no profile (graph not run on the CPU?)');
    return {
      file, threads, seconds: audio.samples.length / audio.sampleRate, weightType, encoderMs: plain.timings.encoderMs,
      profiledMs: r.timings.encoderMs, byOp: profile.byOp, byPart: profile.byPart,
    };
  } finally {
    model.dispose();
  }
}

export function printProfile(label: string, p: ProfileRun): void {
  const total = Object.values(p.byOp).reduce((a, b) => a + b.ms, 0);
  console.log(`\nProfile ${label}: ${p.seconds.toFixed(0)} s, ${p.threads} thread(s), encoder ${p.encoderMs.toFixed(0)} ms unprofiled, ` +
    `${total.toFixed(0)} ms in nodes when profiled`);
  const table = (title: string, rows: Record<string, NodeTime>) => {
    console.log(`  ${title.padEnd(52)} ${'ms'.padStart(8)} ${'share'.padStart(6)} ${'nodes'.padStart(6)}`);
    for (const [name, t] of Object.entries(rows).sort((a, b) => b[1].ms - a[1].ms)) {
      if (t.ms / total < 0.002) continue;
      console.log(`  ${name.padEnd(52)} ${t.ms.toFixed(1).padStart(8)} ${`${((100 * t.ms) / total).toFixed(1)}%`.padStart(6)} ${String(t.count).padStart(6)}`);
    }
  };
  table('by op', p.byOp);
  table('by model part', p.byPart);
}
