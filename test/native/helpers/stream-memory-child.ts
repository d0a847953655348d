// Child of stream-memory.test.ts (run with --expose-gc): streams `minutes` of speech-like audio through
// one stream of the model at argv[2] in 0.5 s blocks (made on the fly, so the audio itself takes no
// memory) and prints the process RSS after each minute as JSON.
import { Model } from '../../../native/index.js';
import { speechLike, quiet } from '../../support/audio/signals.js';

const [path, minutesText] = process.argv.slice(2);
const minutes = Number(minutesText);
const model = await Model.load(path, { threads: 1 });
const stream = model.createStream();
const collect = (globalThis as { gc?: () => void }).gc;
const rssMb: number[] = [];
let chunks = 0;
let tokens = 0;
for (let second = 0; second < minutes * 60; second += 1) {
  // A phrase then a pause each 4 s, with seeds that repeat (the memory must not depend on novelty).
  const sound = second % 4 === 3 ? quiet(1, 900 + (second % 8)) : speechLike(1, 100 + (second % 16));
  for (const half of [sound.subarray(0, 8000), sound.subarray(8000)]) {
    for (const c of await stream.feed(half)) {
      chunks += 1;
      tokens += c.tokenIds.length;
    }
  }
  if ((second + 1) % 60 === 0) {
    collect?.();
    rssMb.push(process.memoryUsage().rss / 2 ** 20);
  }
}
await stream.end();
stream.dispose();
model.dispose();
process.stdout.write(`${JSON.stringify({ rssMb, chunks, tokens, gc: collect !== undefined })}\n`);
