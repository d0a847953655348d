// CLI: write a random-weight Parakeet GGUF.
//   node --import tsx test/support/model/make-model.ts --preset tiny --arch tdt --type q8_0 --out x.gguf
// Other flags: --seed N, --label S, --alignment N, --omit-key K (repeatable),
// --d-model/--n-layers/--n-heads/--ff-dim/--conv-kernel/--channels/--n-mels/--vocab/
// --pred-hidden/--pred-layers/--joint-hidden/--max-symbols N, --no-bias, --bias,
// --xscaling, --conv-norm layer_norm, --normalize NA, --preemph X, --ctc-head none|decoder|ctc_decoder,
// --arch-label S, --durations 0,1,2,3,4, --list (print the tensor table instead of only a summary),
// --family eou|nemotron-en|nemotron-3.5 (a cache-aware streaming family, streaming.ts; size from --preset).
import { parseArgs } from 'node:util';
import { generateModel } from './generate.js';
import {
  ARCHS, type Arch, type CtcHeadLocation, type ModelOptionsInput, PRESET_NAMES, type PresetName, WEIGHT_TYPES, type WeightType,
} from './options.js';
import { STREAMING_FAMILIES, type StreamingFamily } from './streaming.js';

function oneOf<T extends string>(what: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw new Error(`--${what} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function int(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`not an integer: ${v}`);
  return n;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      preset: { type: 'string' }, arch: { type: 'string' }, type: { type: 'string' }, out: { type: 'string' },
      seed: { type: 'string' }, label: { type: 'string' }, alignment: { type: 'string' },
      'omit-key': { type: 'string', multiple: true },
      'd-model': { type: 'string' }, 'n-layers': { type: 'string' }, 'n-heads': { type: 'string' },
      'ff-dim': { type: 'string' }, 'conv-kernel': { type: 'string' }, channels: { type: 'string' },
      'n-mels': { type: 'string' }, vocab: { type: 'string' }, 'pred-hidden': { type: 'string' },
      'pred-layers': { type: 'string' }, 'joint-hidden': { type: 'string' }, 'max-symbols': { type: 'string' },
      'no-bias': { type: 'boolean' }, bias: { type: 'boolean' }, xscaling: { type: 'boolean' },
      'conv-norm': { type: 'string' }, normalize: { type: 'string' }, preemph: { type: 'string' },
      'ctc-head': { type: 'string' }, 'arch-label': { type: 'string' }, durations: { type: 'string' },
      family: { type: 'string' }, list: { type: 'boolean' }, help: { type: 'boolean' },
    },
  });
  if (values.help || !values.out) {
    console.log(`usage: make-model.ts --out FILE [--preset ${PRESET_NAMES.join('|')}] [--family F] [--arch A] [--type T] [--seed N] ...`);
    console.log(`  archs: ${ARCHS.join(' ')}\n  types: ${WEIGHT_TYPES.join(' ')}\n  families: ${STREAMING_FAMILIES.join(' ')}`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const input: { -readonly [K in keyof ModelOptionsInput]: ModelOptionsInput[K] } = {};
  const set = <K extends keyof ModelOptionsInput>(k: K, v: ModelOptionsInput[K] | undefined): void => {
    if (v !== undefined) input[k] = v;
  };
  set('preset', oneOf<PresetName>('preset', values.preset, PRESET_NAMES));
  set('family', oneOf<StreamingFamily>('family', values.family, STREAMING_FAMILIES));
  set('arch', oneOf<Arch>('arch', values.arch, ARCHS));
  set('weightType', oneOf<WeightType>('type', values.type, WEIGHT_TYPES));
  set('seed', int(values.seed));
  set('label', values.label);
  set('alignment', int(values.alignment));
  set('omitKeys', values['omit-key']);
  set('dModel', int(values['d-model']));
  set('nLayers', int(values['n-layers']));
  set('nHeads', int(values['n-heads']));
  set('ffDim', int(values['ff-dim']));
  set('convKernel', int(values['conv-kernel']));
  set('subsamplingChannels', int(values.channels));
  set('nMels', int(values['n-mels']));
  set('vocabSize', int(values.vocab));
  set('predHidden', int(values['pred-hidden']));
  set('predLayers', int(values['pred-layers']));
  set('jointHidden', int(values['joint-hidden']));
  set('maxSymbols', int(values['max-symbols']));
  if (values['no-bias']) input.useBias = false;
  if (values.bias) input.useBias = true;
  if (values.xscaling) input.xscaling = true;
  set('convNormType', oneOf('conv-norm', values['conv-norm'], ['batch_norm', 'layer_norm'] as const));
  set('normalize', oneOf('normalize', values.normalize, ['per_feature', 'NA'] as const));
  set('preemph', values.preemph === undefined ? undefined : Number(values.preemph));
  set('ctcHeadLocation', oneOf<CtcHeadLocation>('ctc-head', values['ctc-head'], ['none', 'decoder', 'ctc_decoder']));
  set('archLabel', values['arch-label']);
  set('durations', values.durations?.split(',').map((s) => Number(s)));

  const t0 = performance.now();
  const d = generateModel(values.out, input);
  const secs = (performance.now() - t0) / 1000;
  if (values.list) for (const t of d.tensors) console.log(`${t.name}\t[${t.ne.join(', ')}]\t${t.typeName}`);
  console.log(
    `${d.path}: ${d.options.arch} (${d.options.label}), ${d.tensors.length} tensors (${d.quantizedCount} non-F32), ` +
      `${d.layout.fileSize} bytes, ${secs.toFixed(1)} s`,
  );
}

try {
  main();
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
}
