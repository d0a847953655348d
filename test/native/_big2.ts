import { Model } from '../../native/index.js';
import { speechLike } from '../support/audio/signals.js';
const model = await Model.load('/tmp/se/eou120m.gguf', { threads: 1 });
const pcm = speechLike(30, 5);
const stream = model.createStream();
let t = performance.now();
for (let i = 0; i < pcm.length; i += 2560) {
  const c = await stream.feed(pcm.subarray(i, i + 2560));
  const now = performance.now();
  if (i % (2560 * 10) === 0) console.log(i / 16000, c.length, (now - t).toFixed(1), 'ms');
  t = now;
}
