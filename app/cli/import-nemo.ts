// `parakeet import-nemo IN.nemo OUT.gguf [--type f32|f16|q8_0]`: the .nemo converted without Python
// (app/main/models/nemo), then loaded by the engine and put through its CPU known-answer self-test; a
// file the engine refuses or that fails the test is removed again, so OUT exists only as a model that
// loads and computes.
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Model, type LoadOptions, type ModelInfo } from '../../native/index.js';
import { selfTestConverted } from '../engine-process/self-test-run.js';
import { importNemo, NEMO_WEIGHT_TYPES, type NemoWeightType } from '../main/models/nemo/nemo-import.js';

export async function importNemoCommand(args: readonly string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { type: { type: 'string' } } });
  if (positionals.length !== 2) throw Object.assign(new Error('import-nemo needs <in.nemo> <out.gguf>'), { code: 'ERR_PARSE_ARGS_USAGE' });
  const weightType = (values.type ?? 'f32') as NemoWeightType;
  if (!NEMO_WEIGHT_TYPES.includes(weightType)) throw Object.assign(new Error(`--type must be one of: ${NEMO_WEIGHT_TYPES.join(', ')}`), { code: 'ERR_PARSE_ARGS_USAGE' });
  const [input, output] = positionals;
  let reported = -1;
  const result = await importNemo(input, output, {
    weightType,
    onProgress: (fraction) => {
      const percent = Math.floor(fraction * 10) * 10;
      if (percent !== reported) process.stderr.write(`importing: ${(reported = percent)} %\n`);
    },
  });
  try {
    const load = (path: string, options: LoadOptions): Promise<Model> => Model.load(path, options);
    const model = await load(output, { device: 'cpu', threads: 1 });
    let info: ModelInfo;
    try {
      info = model.info();
      await selfTestConverted(model, output, load);
    } finally {
      model.dispose();
    }
    process.stderr.write(`wrote ${output}: ${info.arch}, ${info.nLayers} layers, d_model ${info.dModel}, ${result.vocabulary} pieces, ${result.tensors} tensors (${weightType})\n`);
  } catch (error) {
    await rm(output, { force: true });
    throw error;
  }
}
