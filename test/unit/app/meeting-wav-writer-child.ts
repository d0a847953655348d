// Child process of meeting-journal.test.ts: journals a ramp (sample i has the value of i, see rampValue)
// in 40 ms frames at real time through WavJournalWriter with its default 1 s sync, and prints
// "appended <samples>" after each frame, until the parent SIGKILLs it.
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { rampValue } from './meeting-ramp.js';

const file = process.argv[2]!;
const writer = await WavJournalWriter.create(file, { sampleRate: 16000 });
let next = 0;
const frame = 640;
setInterval(() => {
  const samples = new Float32Array(frame);
  for (let i = 0; i < frame; i += 1) samples[i] = rampValue(next + i);
  writer.append(samples);
  next += frame;
  process.stdout.write(`appended ${next}\n`);
}, 40);
