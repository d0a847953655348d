// CPU time (process.cpuUsage: user + system, not wall time) of streaming diarization at 1 thread on a
// generated model of the diar_streaming_sortformer_4spk-v2 shapes. CPU time stays comparable on a shared
// machine where wall time does not; use it to compare two builds, not as a speed figure.
//   node --import tsx test/bench/diarization-cpu-time.ts [--seconds 30] [--model FILE] [--tiny]
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Diarizer } from '../../native/diarizer.js';
import { speechLike } from '../support/audio/signals.js';
import { generateSortformer, SHAPE_SORTFORMER_4SPK_V2, TINY_SORTFORMER } from '../support/model/sortformer.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '30' }, model: { type: 'string' }, tiny: { type: 'boolean', default: false } },
});
const seconds = Number(values.seconds);
// The generated file is kept between runs (a 4spk-v2-sized model takes a while to write) so that two builds read the same weights.
const folder = join(tmpdir(), 'parakeet-diarization-cpu-time');
mkdirSync(folder, { recursive: true });
const path = values.model ?? join(folder, values.tiny ? 'tiny.gguf' : 'sortformer-4spk-v2-shape.gguf');
if (!existsSync(path)) generateSortformer(path, values.tiny ? TINY_SORTFORMER : SHAPE_SORTFORMER_4SPK_V2);
const diarizer = await Diarizer.load(path, { threads: 1 });
const pcm = speechLike(seconds, 7);
for (const streaming of [true, false]) {
  const before = process.cpuUsage();
  const got = await diarizer.diarize(pcm, { streaming });
  const used = process.cpuUsage(before);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(`${streaming ? 'streaming' : 'offline'}: ${seconds} s of audio, ${got.frames} frames, CPU time ${cpuSeconds.toFixed(2)} s at 1 thread`);
}
diarizer.dispose();
