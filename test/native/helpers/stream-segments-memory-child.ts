// Child of stream-segments-memory.test.ts (run with --expose-gc): a meeting's use of a streaming model,
// without the app around it. Two tracks at once, each a run of segments of 1–3 s of speech-like audio;
// every segment is a stream of its own (Model.createStream with one thread, as the engine process begins
// one per segment), fed in 40 ms blocks with the next block sent while the last is computing, then ended
// and disposed. Prints the process RSS after each round of `segmentsPerRound` segments per track as JSON.
import { Model, type ModelStream } from '../../../native/index.js';
import { speechLike } from '../../support/audio/signals.js';

const [path, roundsText, segmentsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const segmentsPerRound = Number(segmentsText);
const BLOCK = 640; // 40 ms at 16 kHz, the meeting's capture block

const model = await Model.load(path, { threads: 1 });
const collect = (globalThis as { gc?: () => void }).gc;

/**
 * The small host blocks the rest of a meeting's process makes as audio arrives (capture blocks, messages,
 * journal writes): allocated on the JS thread between the streams' calls, each living for a while. They
 * land wherever malloc finds room, in the holes a freed stream's buffers left too.
 */
let othersMade = 0;
const otherBlock = (): Float32Array => new Float32Array(256 + (othersMade++ % 7) * 128);
// Full from the start, so that their own total (≈ 10 MB) is the same at every measurement.
const others: Float32Array[] = Array.from({ length: 4096 }, otherBlock);
function otherWork(): void {
  for (let i = 0; i < 4; i += 1) others[(othersMade * 2654435761) % others.length] = otherBlock();
}

/** One segment: a stream begun, fed block by block as the audio arrives, ended, disposed. */
async function segment(seconds: number, seed: number): Promise<number> {
  const audio = speechLike(seconds, seed);
  const stream: ModelStream = model.createStream({ threads: 1 });
  let chunks = 0;
  for (let at = 0; at < audio.length; at += BLOCK) {
    otherWork();
    chunks += (await stream.feed(audio.subarray(at, Math.min(at + BLOCK, audio.length)))).length;
  }
  chunks += (await stream.end()).length;
  stream.dispose();
  otherWork();
  return chunks;
}

async function track(round: number, trackIndex: number): Promise<void> {
  for (let i = 0; i < segmentsPerRound; i += 1) {
    const n = round * segmentsPerRound + i;
    // Lengths vary (1.0–3.0 s), so each stream's final partial chunk has its own shape, as in a meeting.
    await segment(1 + ((n * 7 + trackIndex * 3) % 21) / 10, 100 + ((n + trackIndex) % 16));
  }
}

const rssMb: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  await Promise.all([track(round, 0), track(round, 1)]);
  collect?.();
  rssMb.push(process.memoryUsage().rss / 2 ** 20);
}
model.dispose();
process.stdout.write(`${JSON.stringify({ rssMb, segments: 2 * rounds * segmentsPerRound, gc: collect !== undefined })}\n`);
