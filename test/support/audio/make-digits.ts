// Makes the spoken-digits test set (test/support/audio/digits.ts) and prints
// its folder. Cached: a second run only prints the folder.
//
//   npm run testset:digits                      the evaluation set (6 voices × 25 strings)
//   npm run testset:digits -- --seed N --per-voice K [--voices en-us,en]   another set, same generator
import { parseArgs } from 'node:util';
import { ensureDigitsSet, TEST_SET, VOICES } from './digits.js';

const { values } = parseArgs({
  options: { seed: { type: 'string' }, 'per-voice': { type: 'string' }, voices: { type: 'string' }, name: { type: 'string' } },
});
const custom = values.seed !== undefined || values['per-voice'] !== undefined || values.voices !== undefined;
const opts = custom
  ? {
      seed: Number(values.seed ?? TEST_SET.seed),
      perVoice: Number(values['per-voice'] ?? TEST_SET.perVoice),
      voices: values.voices ? values.voices.split(',') : VOICES,
    }
  : TEST_SET;
const started = Date.now();
const set = ensureDigitsSet(values.name ?? (custom ? 'custom' : 'test'), opts);
process.stderr.write(`${set.items.length} utterances (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
process.stdout.write(`${set.dir}\n`);
