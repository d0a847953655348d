// One `bench:streaming` configuration in its own process (so its RSS is its own): load a streaming
// model, stream `minutes` of audio through one preset in real-time-sized blocks and print one JSON
// line with the chunk compute times, RTFx, the first-token latency after speech onset and the RSS
// after the first minute (--baseline-sec) and at the end.
//
//   node --expose-gc --import tsx test/bench/stream-run.ts --model M --att-context L,R --threads N --audio WAV [--minutes 60]
import { parseArgs } from 'node:util';
import { Model, type ModelInfo, type StreamInfo } from '../../native/index.js';
import { readWav16 } from '../support/audio/digits.js';

export interface StreamRunResult {
  attContext: [number, number];
  threads: number;
  /** Audio per chunk (new mel frames × hop) in ms, first chunk excluded. */
  chunkAudioMs: number;
  chunks: number;
  chunkP50Ms: number;
  chunkP95Ms: number;
  /** chunkP50Ms as a percentage of chunkAudioMs. */
  computePercent: number;
  rtfx: number;
  /**
   * Speech onset → the audio of the chunk holding the first encoder frame that hears it has arrived
   * (chunk, right context, mel window), mean and worst over onset positions; see onsetWaitMs.
   */
  firstTokenAlgorithmicMs: number;
  firstTokenAlgorithmicMaxMs: number;
  /** Then that chunk's compute (its p50). */
  firstTokenComputeMs: number;
  audioSeconds: number;
  /** The process's CPU time (user + system, all threads) per chunk over the whole stream, ms: comparable on a busy machine. */
  cpuMsPerChunk: number;
  /** Tokens emitted per chunk (random weights emit far more than a trained model on speech). */
  tokensPerChunk: number;
  /** RSS after --baseline-sec of audio (default 60) and at the end. */
  rssBaselineMB: number;
  baselineSeconds: number;
  rssEndMB: number;
}

const { values } = parseArgs({
  options: {
    model: { type: 'string' }, 'att-context': { type: 'string' }, threads: { type: 'string' }, audio: { type: 'string' },
    minutes: { type: 'string' }, 'block-ms': { type: 'string' }, 'baseline-sec': { type: 'string' },
  },
});

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** RSS after a full GC, so freed JS garbage does not count as growth. */
function settledRssMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('stream-run needs node --expose-gc');
  gc();
  return process.memoryUsage().rss / 1e6;
}

/**
 * The wait from a speech onset at sample s until the chunk that first hears it can run, over every
 * onset position (one hop apart) in one later chunk's span: causal subsampling ends encoder frame t
 * at mel frame factor·t, whose window reaches sample factor·t·hop + n_fft/2 − 1, so the onset's first
 * frame is t = ceil((s − n_fft/2 + 1) / (factor·hop)); chunk k ≥ 1 (c frames each after the first)
 * holds it and is complete when its last mel frame, melFirst − 1 + k·melChunk, is final.
 */
export function onsetWaitMs(info: ModelInfo, schedule: StreamInfo): { meanMs: number; maxMs: number } {
  const frameSamples = info.subsamplingFactor * info.hopLength;
  const half = info.nFft / 2;
  const chunkSamples = schedule.melChunk * info.hopLength;
  const from = 10 * chunkSamples; // steady state, away from the first chunk
  let sum = 0;
  let max = 0;
  let n = 0;
  for (let s = from; s < from + chunkSamples; s += info.hopLength) {
    const t = Math.ceil((s - half + 1) / frameSamples);
    const k = Math.floor(t / schedule.chunkFrames);
    const lastMel = schedule.melFirst - 1 + k * schedule.melChunk;
    const wait = lastMel * info.hopLength + half - s;
    sum += wait;
    max = Math.max(max, wait);
    n++;
  }
  const ms = (samples: number): number => (samples / info.sampleRate) * 1000;
  return { meanMs: ms(sum / n), maxMs: ms(max) };
}

async function main(): Promise<void> {
  if (!values.model || !values.audio || !values['att-context']) throw new Error('--model, --audio and --att-context are required');
  const [left, right] = values['att-context'].split(',').map(Number);
  const threads = Number(values.threads ?? '1');
  const minutes = Number(values.minutes ?? '60');
  const { samples: speech, sampleRate } = readWav16(values.audio);
  const blockSamples = Math.round((Number(values['block-ms'] ?? '10') / 1000) * sampleRate);
  const totalSamples = Math.round(minutes * 60 * sampleRate);
  const onsetSample = sampleRate; // one second of silence first
  // RSS growth is measured from here to the end (the issue: after 1 min and after 60 min).
  const baselineSample = Math.round(Number(values['baseline-sec'] ?? '60') * sampleRate);

  const model = await Model.load(values.model, { threads });
  const info = model.info();
  const stream = model.createStream({ attContext: [left, right], threads });
  const schedule = stream.info();
  const algorithmic = onsetWaitMs(info, schedule);

  // Silence until the onset, then the speech clip over and over.
  const block = new Float32Array(blockSamples);
  const fill = (from: number, n: number): Float32Array => {
    const out = block.subarray(0, n);
    for (let i = 0; i < n; i++) {
      const s = from + i;
      out[i] = s < onsetSample ? 0 : speech[(s - onsetSample) % speech.length];
    }
    return out;
  };

  const chunkMs: number[] = [];
  let computeMs = 0;
  let chunks = 0;
  let rssBaseline = Number.NaN;
  let tokens = 0;
  const cpuStart = process.cpuUsage();
  for (let fed = 0; fed < totalSamples;) {
    const n = Math.min(blockSamples, totalSamples - fed);
    const pcm = fill(fed, n);
    const t0 = performance.now();
    const done = await stream.feed(pcm);
    const ms = performance.now() - t0;
    fed += n;
    computeMs += ms;
    // Per chunk; the first chunk (shorter, and the first run of its graph) is left out of the statistics.
    for (const perChunk of done.map(() => ms / done.length)) if (chunks++ > 0) chunkMs.push(perChunk);
    for (const c of done) tokens += c.tokenIds.length;
    if (Number.isNaN(rssBaseline) && fed >= baselineSample) rssBaseline = settledRssMB();
  }
  const t0 = performance.now();
  tokens += (await stream.end()).reduce((n, c) => n + c.tokenIds.length, 0);
  computeMs += performance.now() - t0;
  const cpu = process.cpuUsage(cpuStart);
  const rssEnd = settledRssMB();
  stream.dispose();
  model.dispose();

  chunkMs.sort((a, b) => a - b);
  const chunkAudioMs = ((schedule.melChunk * info.hopLength) / info.sampleRate) * 1000;
  const p50 = percentile(chunkMs, 0.5);
  const result: StreamRunResult = {
    attContext: [left, right],
    threads,
    chunkAudioMs,
    chunks,
    chunkP50Ms: p50,
    chunkP95Ms: percentile(chunkMs, 0.95),
    computePercent: (100 * p50) / chunkAudioMs,
    rtfx: totalSamples / sampleRate / (computeMs / 1000),
    firstTokenAlgorithmicMs: algorithmic.meanMs,
    firstTokenAlgorithmicMaxMs: algorithmic.maxMs,
    firstTokenComputeMs: p50,
    audioSeconds: totalSamples / sampleRate,
    cpuMsPerChunk: (cpu.user + cpu.system) / 1000 / chunks,
    tokensPerChunk: tokens / chunks,
    rssBaselineMB: rssBaseline,
    baselineSeconds: baselineSample / sampleRate,
    rssEndMB: rssEnd,
  };
  console.log(JSON.stringify(result));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
