// Child of sortformer-memory.test.ts (run with --expose-gc): streams `minutes` of a meeting-like track
// through one diarizer stream of the model at argv[2] in `blockMs` blocks (default 100 ms, as a live
// microphone; made a minute at a time, so the audio itself takes no memory), keeps no frames, and prints
// the process RSS after each minute (garbage collected first) as JSON.
import { Diarizer } from '../../../native/diarizer.js';
import { meetingMinute } from '../../support/audio/signals.js';

const [path, minutesText, blockMsText] = process.argv.slice(2);
const minutes = Number(minutesText);
const blockMs = Number(blockMsText ?? '100');
const diarizer = await Diarizer.load(path, { threads: Number(process.env.PARAKEET_MEMORY_THREADS ?? '1') });
const stream = diarizer.createStream();
const block = Math.round((blockMs / 1000) * diarizer.info().sampleRate);
const collect = (globalThis as { gc?: () => void }).gc;
const rssMb: number[] = [];
let frames = 0;
for (let minute = 0; minute < minutes; minute += 1) {
  // Four tracks' minutes in turn: the memory must not depend on novelty, and must not need it either.
  const pcm = meetingMinute(minute % 4, minute % 4);
  for (let at = 0; at < pcm.length; at += block) frames += (await stream.push(pcm.subarray(at, at + block))).frames;
  collect?.();
  rssMb.push(process.memoryUsage().rss / 2 ** 20);
  if (process.env.PARAKEET_MEMORY_PROGRESS === '1') process.stderr.write(`minute ${minute + 1}: rss ${rssMb[minute].toFixed(1)} MB\n`);
}
frames += (await stream.finish()).frames;
stream.dispose();
diarizer.dispose();
process.stdout.write(`${JSON.stringify({ rssMb, frames, gc: collect !== undefined })}\n`);
