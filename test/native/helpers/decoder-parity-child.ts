// Child of test/native/decoder-parity.test.ts, run once per forced CPU class (PARAKEET_CPU_CLASS is
// read once per process). For each model and layout named on the command line it transcribes the
// clip, then decodes the engine's own encoder output with the float64 transducer (test/reference)
// and prints one JSON line per case: how far the engine's tokens follow that decode, how many of
// the float64 decisions are clear (margin > 1e-3), and the kernels that ran.
//   node --import tsx decoder-parity-child.ts <clip.f32> <model.gguf>:<layout>[,<layout>…] …
import { readFileSync } from 'node:fs';
import { Model, type WeightType, listDevices } from '../../../native/index.js';
import { ctcGreedy, ctcLogProbs } from '../../reference/ctc.js';
import { reliableTokenCount } from '../../reference/decoding.js';
import { projectEncoder, transducerModel } from '../../reference/joint.js';
import { loadReferenceModel, referenceTranscribe } from '../../reference/transcribe.js';
import { tdtGreedy } from '../../reference/tdt.js';
import { rnntGreedy } from '../../reference/rnnt.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { commonPrefix, describeTokens, relL2 } from './compare.js';

export interface DecoderParityCase {
  model: string;
  layout: WeightType;
  decoder: string;
  cpuFeatures: string[];
  kernels: Record<string, number>;
  /** Engine tokens equal to the float64 decode of the engine's encoder output, from the start. */
  agreeing: number;
  /** Float64 decisions before the first near-tie (margin ≤ 1e-3): these tokens must agree. */
  reliable: number;
  tokens: number;
  /** The engine's encoder output against the float64 encoder of the same file (relative L2). */
  encoderRelL2: number;
  /** The whole pipeline against the float64 reference: agreeing tokens, reliable tokens. */
  endToEnd: { agreeing: number; reliable: number; tokens: number };
  detail: string;
}

const [clipPath, ...specs] = process.argv.slice(2);
const clip = new Float32Array(readFileSync(clipPath).buffer.slice(0));
const cpuFeatures = listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? [];
for (const spec of specs) {
  const [path, layouts] = spec.split(':');
  const weights = openWeightSource(path);
  const model = loadReferenceModel(weights);
  const hp = model.hparams;
  const full = referenceTranscribe(weights, clip);
  for (const layout of layouts.split(',') as WeightType[]) {
    const engine = await Model.load(path, { threads: 1, weightType: layout });
    try {
      const res = await engine.transcribe(clip, { captureEncoder: true });
      const enc = res.encoder!;
      const out = Float64Array.from(enc.data);
      const tr = hp.transducer;
      let decoded;
      if (tr !== null && model.prediction !== null && model.joint !== null) {
        const tm = transducerModel(model.prediction, model.joint, projectEncoder(model.joint, out, enc.frames), hp.blankId);
        decoded = tr.isTdt ? tdtGreedy(tm, enc.validFrames, tr.durations, tr.maxSymbols) : rnntGreedy(tm, enc.validFrames, tr.maxSymbols);
      } else {
        decoded = ctcGreedy(ctcLogProbs(out, enc.frames, model.ctc!), enc.validFrames, model.ctc!.nClasses);
      }
      const agreeing = commonPrefix(decoded.tokens, res.tokens);
      const row: DecoderParityCase = {
        model: path, layout, decoder: res.decoder, cpuFeatures, kernels: engine.info().kernels,
        agreeing, reliable: reliableTokenCount(decoded.steps), tokens: decoded.tokens.length,
        encoderRelL2: relL2(full.encoder.out, enc.data, enc.validFrames * enc.dim),
        endToEnd: { agreeing: commonPrefix(full.tokens, res.tokens), reliable: full.reliableTokens, tokens: full.tokens.length },
        detail: `float64 ${describeTokens(decoded.tokens.slice(Math.max(0, agreeing - 2), agreeing + 4))} | engine ${describeTokens(res.tokens.slice(Math.max(0, agreeing - 2), agreeing + 4))}`,
      };
      console.log(JSON.stringify(row));
    } finally {
      engine.dispose();
    }
  }
}
