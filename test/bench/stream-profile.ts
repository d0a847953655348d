// `npm run bench:streaming -- --profile`: where one steady-state streaming chunk's time goes, on the
// real shapes. Two streams over the same audio on one loaded model, fed one chunk of audio at a time:
// the first unprofiled (per-chunk encoder and decoder wall time, tokens per chunk, and the process's
// CPU time per chunk — the figure to compare variants by on a shared machine, since other processes'
// load inflates wall time but not our CPU time), the second with every chunk's encoder graph run
// node by node and timed (by ggml op; by part: matmuls by weight role, other nodes by the layer module
// that holds them). The unprofiled encoder time minus the profiled nodes' sum is what the graph costs
// beyond its nodes (launch, thread sync, input upload, output read-back).
import { readWav16 } from '../support/audio/digits.js';
import { Model, type NodeTime } from '../../native/index.js';

/** What this profile sums per node kind (the per-thread split is bench:threads'). */
type NodeSum = Pick<NodeTime, 'ms' | 'count' | 'cpuMs'>;

export interface StreamProfile {
  attContext: [number, number];
  threads: number;
  chunkAudioMs: number;
  /** Chunks measured in each stream (after the warm-up chunks). */
  chunks: number;
  framesPerChunk: number;
  tokensPerChunk: number;
  /** Unprofiled stream, per chunk: encoder and decoder wall time (p50, ms), their engine-thread CPU time (mean, ms), process CPU ms. */
  encoderP50Ms: number;
  decoderP50Ms: number;
  encoderCpuMs: number;
  decoderCpuMs: number;
  cpuMsPerChunk: number;
  /** Profiled stream, per chunk: the nodes' sum (wall and engine-thread CPU ms) and the tables (per chunk). */
  profiledNodesMs: number;
  profiledNodesCpuMs: number;
  byOp: Record<string, NodeSum>;
  byPart: Record<string, NodeSum>;
}

const WARMUP_CHUNKS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)];
}

function addTable(into: Record<string, NodeSum>, from: Record<string, NodeSum>): void {
  for (const [name, t] of Object.entries(from)) {
    const row = (into[name] ??= { ms: 0, count: 0, cpuMs: 0 });
    row.ms += t.ms;
    row.cpuMs += t.cpuMs;
    row.count += t.count;
  }
}

function perChunk(table: Record<string, NodeSum>, chunks: number): Record<string, NodeSum> {
  return Object.fromEntries(Object.entries(table).map(([name, t]) => [name, { ms: t.ms / chunks, count: t.count / chunks, cpuMs: t.cpuMs / chunks }]));
}

export async function profileStream(modelPath: string, audioPath: string, preset: [number, number], threads: number, chunks: number): Promise<StreamProfile> {
  const { samples: speech, sampleRate } = readWav16(audioPath);
  const model = await Model.load(modelPath, { threads });
  try {
    const info = model.info();
    const run = async (profile: boolean) => {
      const stream = model.createStream({ attContext: preset, threads, profile });
      const schedule = stream.info();
      const chunkSamples = schedule.melChunk * info.hopLength;
      const firstSamples = schedule.melFirst * info.hopLength;
      const encoderMs: number[] = [];
      const decoderMs: number[] = [];
      let encoderCpuMs = 0;
      let decoderCpuMs = 0;
      let tokens = 0;
      let frames = 0;
      let cpuMicros = 0;
      let measured = 0;
      const nodes: { byOp: Record<string, NodeSum>; byPart: Record<string, NodeSum> } = { byOp: {}, byPart: {} };
      let offset = 0;
      const next = (n: number): Float32Array => {
        const block = new Float32Array(n);
        for (let i = 0; i < n; i++) block[i] = speech[(offset + i) % speech.length];
        offset += n;
        return block;
      };
      await stream.feed(next(firstSamples));
      for (let k = 0; measured < chunks; k++) {
        const block = next(chunkSamples);
        const cpu0 = process.cpuUsage();
        const done = await stream.feed(block);
        const cpu = process.cpuUsage(cpu0);
        if (k < WARMUP_CHUNKS) continue;
        cpuMicros += cpu.user + cpu.system;
        for (const c of done) {
          encoderMs.push(c.encoderMs);
          decoderMs.push(c.decoderMs);
          encoderCpuMs += c.encoderCpuMs;
          decoderCpuMs += c.decoderCpuMs;
          tokens += c.tokenIds.length;
          frames += c.frames;
          if (c.profile) {
            addTable(nodes.byOp, c.profile.byOp);
            addTable(nodes.byPart, c.profile.byPart);
          }
          measured++;
        }
      }
      stream.dispose();
      return { encoderMs, decoderMs, encoderCpuMs, decoderCpuMs, tokens, frames, cpuMicros, measured, nodes, chunkMs: (chunkSamples / sampleRate) * 1000 };
    };
    const plain = await run(false);
    const profiled = await run(true);
    const byOp = perChunk(profiled.nodes.byOp, profiled.measured);
    return {
      attContext: preset,
      threads,
      chunkAudioMs: plain.chunkMs,
      chunks: plain.measured,
      framesPerChunk: plain.frames / plain.measured,
      tokensPerChunk: plain.tokens / plain.measured,
      encoderP50Ms: median(plain.encoderMs),
      decoderP50Ms: median(plain.decoderMs),
      encoderCpuMs: plain.encoderCpuMs / plain.measured,
      decoderCpuMs: plain.decoderCpuMs / plain.measured,
      cpuMsPerChunk: plain.cpuMicros / 1000 / plain.measured,
      profiledNodesMs: Object.values(byOp).reduce((a, t) => a + t.ms, 0),
      profiledNodesCpuMs: Object.values(byOp).reduce((a, t) => a + t.cpuMs, 0),
      byOp,
      byPart: perChunk(profiled.nodes.byPart, profiled.measured),
    };
  } finally {
    model.dispose();
  }
}

export function printStreamProfile(label: string, p: StreamProfile): void {
  const f = (v: number, d = 2) => v.toFixed(d);
  const share = (ms: number) => `${f((100 * ms) / p.chunkAudioMs, 1)} %`;
  console.log(`\nStream profile ${label} [${p.attContext.join(',')}], ${p.threads} thread(s): ${f(p.chunkAudioMs, 0)} ms chunks, ` +
    `${f(p.framesPerChunk, 1)} encoder frames and ${f(p.tokensPerChunk, 1)} tokens a chunk, ${p.chunks} chunks`);
  console.log(`  unprofiled, per chunk: encoder ${f(p.encoderCpuMs)} ms CPU (${share(p.encoderCpuMs)} of the chunk's audio; wall p50 ${f(p.encoderP50Ms)}), ` +
    `decoder ${f(p.decoderCpuMs)} ms CPU (${share(p.decoderCpuMs)}; wall p50 ${f(p.decoderP50Ms)}); process CPU ${f(p.cpuMsPerChunk)} ms (${share(p.cpuMsPerChunk)})`);
  console.log(`  profiled nodes ${f(p.profiledNodesCpuMs)} ms CPU a chunk (wall ${f(p.profiledNodesMs)}); ` +
    `encoder beyond its nodes (launch, sync, upload, read-back) ≈ ${f(p.encoderCpuMs - p.profiledNodesCpuMs)} ms CPU`);
  // CPU time is the engine thread's: at one thread all of the compute, steady on a shared machine.
  const table = (title: string, rows: Record<string, NodeSum>) => {
    console.log(`  ${title.padEnd(56)} ${'CPU ms'.padStart(8)} ${'share'.padStart(6)} ${'wall ms'.padStart(8)} ${'nodes'.padStart(6)}`);
    for (const [name, t] of Object.entries(rows).sort((a, b) => b[1].cpuMs - a[1].cpuMs)) {
      if (t.cpuMs / p.profiledNodesCpuMs < 0.002) continue;
      console.log(`  ${name.padEnd(56)} ${f(t.cpuMs, 3).padStart(8)} ${`${f((100 * t.cpuMs) / p.profiledNodesCpuMs, 1)}%`.padStart(6)} ` +
        `${f(t.ms, 3).padStart(8)} ${f(t.count, 0).padStart(6)}`);
    }
  };
  table('by op (per chunk)', p.byOp);
  table('by part (matmuls by weight, other nodes by module)', p.byPart);
}
