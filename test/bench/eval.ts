// `npm run eval`: WER and CER of the trained digits model on the spoken-digits
// test set (made on first use, test/support/audio/digits.ts), through the
// same code as `parakeet eval` (app/cli/eval.ts).
//
//   npm run eval                                   the test set, the digits model, F32 as stored
//   npm run eval -- [folder] [--model m.gguf] [--json] [--decoder ctc] [--device cpu] [--weight-type q8_0]
//                   [--threads N] [--max-window-sec S] [--out FILE]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { DecoderName, WeightType } from '../../native/index.js';
import { evaluateFolder, formatEvalReport } from '../../app/cli/eval.js';
import { DIGITS_MODEL, ensureDigitsSet, TEST_SET } from '../support/audio/digits.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string' }, json: { type: 'boolean' }, decoder: { type: 'string' }, device: { type: 'string' },
    'weight-type': { type: 'string' }, threads: { type: 'string' }, 'max-window-sec': { type: 'string' }, out: { type: 'string' },
  },
});
const folder = positionals[0] ?? ensureDigitsSet('test', TEST_SET).dir;
const report = await evaluateFolder(folder, {
  model: values.model ?? DIGITS_MODEL,
  decoder: values.decoder as DecoderName | undefined,
  device: values.device,
  weightType: values['weight-type'] as WeightType | undefined,
  threads: values.threads ? Number(values.threads) : undefined,
  maxWindowSec: values['max-window-sec'] ? Number(values['max-window-sec']) : undefined,
});
const text = values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatEvalReport(report)}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
