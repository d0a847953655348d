// Exports a parakeet.cpp GGUF's FastConformer encoder as an ONNX graph (opset 17, dynamic time
// axis) so ONNX Runtime can run exactly the math our engine runs, on the same weights. The math is
// NeMo's ConformerEncoder.forward_internal as test/reference implements it (and the weights are
// read through the reference's loaders, so layouts cannot drift): dw_striding pre_encode →
// optional xscale → RelPositionalEncoding → ConformerLayer × N (FFN½, RelPositionMultiHeadAttention
// with rel_shift, ConformerConvolution with batch norm folded, FFN½, norm_out). The head (CTC or
// joint projection) is not part of the graph.
//
// Input `features` [1, n_mels, T] (the engine's log-mel, every frame valid); output `encoded`
// [T', d_model].
//
// precision 'int8' is what onnxruntime.quantization.quantize_dynamic makes of the MatMuls with a
// constant weight (its defaults: weights per-tensor symmetric int8, activations per-tensor uint8
// by DynamicQuantizeLinear, MatMulInteger, Cast, Mul by the product of the scales); ONNX Runtime's
// optimizer fuses that into its VNNI/AMX int8 GEMM. Convolutions and the activation×activation
// matmuls of attention stay fp32, as quantize_dynamic leaves them.
import { loadConformerLayer, type ConformerLayerWeights } from '../../reference/conformer.js';
import { readHParams } from '../../reference/hparams.js';
import { loadSubsampling } from '../../reference/subsampling.js';
import { relPositionalEncoding } from '../../reference/posenc.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { OnnxGraphBuilder, attr } from './onnx-builder.js';
import { TensorDataType } from './onnx-proto.js';

export type OnnxPrecision = 'fp32' | 'int8';

export interface EncoderExportOptions {
  precision: OnnxPrecision;
  /** Longest input the relative-position table covers, in encoder frames (default 1500 = 120 s). */
  maxFrames?: number;
}

export interface EncoderExportInfo {
  nMels: number;
  dModel: number;
  layers: number;
  precision: OnnxPrecision;
  /** MatMuls with int8 weights. */
  quantizedMatMuls: number;
}

const f32 = (x: Float64Array): Float32Array => Float32Array.from(x);

/** torch Linear weight (out, in) row-major → ONNX MatMul B [in, out]. */
function transposed(w: Float64Array, outDim: number, inDim: number): Float32Array {
  const t = new Float32Array(w.length);
  for (let o = 0; o < outDim; o++) for (let i = 0; i < inDim; i++) t[i * outDim + o] = w[o * inDim + i];
  return t;
}

class EncoderGraph {
  quantizedMatMuls = 0;

  constructor(private readonly g: OnnxGraphBuilder, private readonly precision: OnnxPrecision) {}

  /** y = x·Wᵀ + b for a torch-layout weight (out, in); x is [rows, in]. */
  linear(x: string, w: Float64Array, b: Float64Array | null, outDim: number, inDim: number, hint: string): string {
    const g = this.g;
    const wt = transposed(w, outDim, inDim);
    let y: string;
    if (this.precision === 'fp32') {
      y = g.node('MatMul', [x, g.initializer(`${hint}_w`, [inDim, outDim], wt)]);
    } else {
      // quantize_dynamic: symmetric per-tensor weight scale max|w|/127 (qmin −127, qmax 127), zero point 0.
      let absMax = 0;
      for (let i = 0; i < wt.length; i++) absMax = Math.max(absMax, Math.abs(wt[i]));
      const scale = absMax > 0 ? absMax / 127 : 1;
      const q = new Int8Array(wt.length);
      for (let i = 0; i < wt.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(wt[i] / scale)));
      const wq = g.initializer(`${hint}_wq`, [inDim, outDim], q);
      const wScale = g.initializer(`${hint}_ws`, [], Float32Array.of(scale));
      const wZero = g.initializer(`${hint}_wz`, [], Int8Array.of(0));
      const [xq, xScale, xZero] = g.nodeMulti('DynamicQuantizeLinear', [x], 3, {}, 'dql');
      const s = g.node('Mul', [xScale, wScale]);
      const acc = g.node('MatMulInteger', [xq, wq, xZero, wZero]);
      const accF = g.node('Cast', [acc], { to: attr.int(TensorDataType.FLOAT) });
      y = g.node('Mul', [accF, s]);
      this.quantizedMatMuls += 1;
    }
    return b === null ? y : g.node('Add', [y, g.initializer(`${hint}_b`, [outDim], f32(b))]);
  }

  layerNorm(x: string, gamma: Float64Array, beta: Float64Array, hint: string): string {
    const g = this.g;
    return g.node('LayerNormalization', [x, g.initializer(`${hint}_g`, [gamma.length], f32(gamma)), g.initializer(`${hint}_b`, [beta.length], f32(beta))], {
      axis: attr.int(-1), epsilon: attr.float(1e-5),
    });
  }

  silu(x: string): string {
    return this.g.node('Mul', [x, this.g.node('Sigmoid', [x])]);
  }
}

/** Writes `<outPath>` and `<outPath>.data`. Weights are loaded one layer at a time. */
export function exportEncoderOnnx(ggufPath: string, outPath: string, options: EncoderExportOptions): EncoderExportInfo {
  const w = openWeightSource(ggufPath);
  const hp = readHParams(w);
  const enc = hp.enc;
  if (enc.causalDownsampling || enc.convCausal || enc.attContextLeft >= 0 || enc.attContextRight >= 0 || enc.attContextStyle !== 'regular') {
    throw new Error('encoder-onnx: only offline (non-causal, unbounded-context) encoders are exported');
  }
  const D = enc.dModel;
  const H = enc.nHeads;
  const dk = D / H;
  const maxFrames = options.maxFrames ?? 1500;
  const g = new OnnxGraphBuilder(outPath);
  const eg = new EncoderGraph(g, options.precision);

  // --- pre_encode (dw_striding), NeMo ConvSubsampling: image [1, 1, T, M].
  const features = g.input('features', TensorDataType.FLOAT, [1, enc.featIn, 'frames']);
  let x = g.node('Unsqueeze', [g.node('Transpose', [features], { perm: attr.ints([0, 2, 1]) }), g.ints([1])]);
  const sw = loadSubsampling(w, hp);
  const C = sw.channels;
  const conv3x3 = { kernel_shape: attr.ints([3, 3]), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) };
  sw.stages.forEach((st, s) => {
    const inCh = s === 0 ? 1 : C;
    x = g.node('Conv', [x, g.initializer(`sub${s}_w`, [C, 1, 3, 3], f32(st.convW)), g.initializer(`sub${s}_b`, [C], f32(st.convB))], {
      ...conv3x3, group: attr.int(inCh === 1 ? 1 : C),
    });
    if (st.pwW !== null && st.pwB !== null) {
      x = g.node('Conv', [x, g.initializer(`sub${s}_pw`, [C, C, 1, 1], f32(st.pwW)), g.initializer(`sub${s}_pb`, [C], f32(st.pwB))], {
        kernel_shape: attr.ints([1, 1]),
      });
    }
    x = g.node('Relu', [x]);
  });
  // [1, C, T', F'] → [T', C·F'] channel-major, then `out`.
  x = g.node('Reshape', [g.node('Transpose', [x], { perm: attr.ints([0, 2, 1, 3]) }), g.ints([-1, C * sw.freqOut])]);
  x = eg.linear(x, sw.outW, sw.outB, D, C * sw.freqOut, 'sub_out');
  if (sw.xscaling) x = g.node('Mul', [x, g.scalar(Math.sqrt(D))]);

  // --- RelPositionalEncoding: the centre 2T'−1 rows of a table for ±(maxFrames−1).
  const table = relPositionalEncoding(maxFrames, D);
  const pe = g.initializer('pos_table', [2 * maxFrames - 1, D], f32(table));
  const T = g.node('Slice', [g.node('Shape', [x]), g.ints([0]), g.ints([1])], {}, 'frames'); // int64 [1]
  const peStart = g.node('Sub', [g.ints([maxFrames]), T]);
  const peEnd = g.node('Sub', [g.node('Add', [g.ints([maxFrames]), T]), g.ints([1])]);
  const posEmb = g.node('Slice', [pe, peStart, peEnd, g.ints([0])]);

  for (let layer = 0; layer < enc.nLayers; layer++) {
    const lw = loadConformerLayer(w, layer, enc);
    x = conformerLayer(g, eg, x, posEmb, T, lw, { D, H, dk, FF: enc.ffDim, K: enc.convKernel }, `l${layer}`);
  }
  g.output(x, 'encoded', TensorDataType.FLOAT, ['encoded_frames', D]);
  g.finish('parakeet_encoder', 17);
  return { nMels: enc.featIn, dModel: D, layers: enc.nLayers, precision: options.precision, quantizedMatMuls: eg.quantizedMatMuls };
}

interface Dims { D: number; H: number; dk: number; FF: number; K: number }

/** NeMo ConformerLayer.forward (inference). */
function conformerLayer(g: OnnxGraphBuilder, eg: EncoderGraph, x: string, posEmb: string, T: string, lw: ConformerLayerWeights, d: Dims, p: string): string {
  const half = g.scalar(0.5);
  const ffn = (input: string, ff: ConformerLayerWeights['ff1'], hint: string): string => {
    const h = eg.silu(eg.linear(input, ff.w1, ff.b1, d.FF, d.D, `${hint}_1`));
    return eg.linear(h, ff.w2, ff.b2, d.D, d.FF, `${hint}_2`);
  };
  // FFN1 (½ residual)
  let r = g.node('Add', [x, g.node('Mul', [ffn(eg.layerNorm(x, lw.normFF1.gamma, lw.normFF1.beta, `${p}_nff1`), lw.ff1, `${p}_ff1`), half])]);
  // RelPositionMultiHeadAttention
  r = g.node('Add', [r, attention(g, eg, eg.layerNorm(r, lw.normAtt.gamma, lw.normAtt.beta, `${p}_natt`), posEmb, T, lw, d, p)]);
  // ConformerConvolution
  r = g.node('Add', [r, convModule(g, eg, eg.layerNorm(r, lw.normConv.gamma, lw.normConv.beta, `${p}_nconv`), lw, d, p)]);
  // FFN2 (½ residual)
  r = g.node('Add', [r, g.node('Mul', [ffn(eg.layerNorm(r, lw.normFF2.gamma, lw.normFF2.beta, `${p}_nff2`), lw.ff2, `${p}_ff2`), half])]);
  return eg.layerNorm(r, lw.normOut.gamma, lw.normOut.beta, `${p}_nout`);
}

/** NeMo RelPositionMultiHeadAttention.forward with rel_shift (pad, view, drop a row, view, crop). */
function attention(g: OnnxGraphBuilder, eg: EncoderGraph, xh: string, posEmb: string, T: string, lw: ConformerLayerWeights, d: Dims, p: string): string {
  const aw = lw.att;
  const heads = (v: string, perm: number[]) => g.node('Transpose', [g.node('Reshape', [v, g.ints([-1, d.H, d.dk])])], { perm: attr.ints(perm) });
  const q = heads(eg.linear(xh, aw.wq, aw.bq, d.D, d.D, `${p}_q`), [1, 0, 2]); // [H, T, dk]
  const kT = heads(eg.linear(xh, aw.wk, aw.bk, d.D, d.D, `${p}_k`), [1, 2, 0]); // [H, dk, T]
  const v = heads(eg.linear(xh, aw.wv, aw.bv, d.D, d.D, `${p}_v`), [1, 0, 2]); // [H, T, dk]
  const pT = heads(eg.linear(posEmb, aw.wpos, null, d.D, d.D, `${p}_pos`), [1, 2, 0]); // [H, dk, 2T−1]
  const u = g.initializer(`${p}_pbu`, [d.H, 1, d.dk], f32(aw.posBiasU));
  const vb = g.initializer(`${p}_pbv`, [d.H, 1, d.dk], f32(aw.posBiasV));
  const ac = g.node('MatMul', [g.node('Add', [q, u]), kT]); // [H, T, T]
  const bdRaw = g.node('MatMul', [g.node('Add', [q, vb]), pT]); // [H, T, 2T−1]
  // rel_shift: pad one zero column on the left → [H, T, 2T], view [H, 2T, T], drop the first row,
  // view [H, T, 2T−1], keep the first T columns.
  const padded = g.node('Pad', [bdRaw, g.ints([0, 0, 1, 0, 0, 0])]);
  const rows = g.node('Slice', [g.node('Reshape', [padded, g.node('Concat', [g.ints([d.H, -1]), T], { axis: attr.int(0) })]), g.ints([1]), g.ints([2 ** 62]), g.ints([1])]);
  const shifted = g.node('Reshape', [rows, g.node('Concat', [g.ints([d.H]), T, g.ints([-1])], { axis: attr.int(0) })]);
  const bd = g.node('Slice', [shifted, g.ints([0]), T, g.ints([2])]);
  const scores = g.node('Mul', [g.node('Add', [ac, bd]), g.scalar(1 / Math.sqrt(d.dk))]);
  const probs = g.node('Softmax', [scores], { axis: attr.int(-1) });
  const ctx = g.node('Reshape', [g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: attr.ints([1, 0, 2]) }), g.ints([-1, d.D])]);
  return eg.linear(ctx, aw.wo, aw.bo, d.D, d.D, `${p}_o`);
}

/** NeMo ConformerConvolution: pointwise_conv1 → GLU → depthwise conv (+ batch norm, folded) → SiLU → pointwise_conv2. */
function convModule(g: OnnxGraphBuilder, eg: EncoderGraph, xh: string, lw: ConformerLayerWeights, d: Dims, p: string): string {
  const cw = lw.conv;
  const h = eg.linear(xh, cw.pw1W, cw.pw1B, 2 * d.D, d.D, `${p}_pw1`);
  const [a, b] = g.nodeMulti('Split', [h], 2, { axis: attr.int(1) });
  const glu = g.node('Mul', [a, g.node('Sigmoid', [b])]); // [T, D]
  const chw = g.node('Unsqueeze', [g.node('Transpose', [glu], { perm: attr.ints([1, 0]) }), g.ints([0])]); // [1, D, T]
  // Batch norm (running statistics, eps 1e-5) folded into the depthwise kernel and bias, as the engine does.
  const wdw = new Float32Array(d.D * d.K);
  const bdw = new Float32Array(d.D);
  for (let c = 0; c < d.D; c++) {
    let scale = 1;
    let shift = 0;
    if (cw.normType === 'batch_norm' && cw.runningMean && cw.runningVar) {
      scale = cw.normGamma[c] / Math.sqrt(cw.runningVar[c] + 1e-5);
      shift = cw.normBeta[c] - cw.runningMean[c] * scale;
    }
    for (let k = 0; k < d.K; k++) wdw[c * d.K + k] = cw.dwW[c * d.K + k] * scale;
    bdw[c] = (cw.dwB === null ? 0 : cw.dwB[c]) * scale + shift;
  }
  const pad = (d.K - 1) / 2;
  let y = g.node('Conv', [chw, g.initializer(`${p}_dw`, [d.D, 1, d.K], wdw), g.initializer(`${p}_dwb`, [d.D], bdw)], {
    kernel_shape: attr.ints([d.K]), pads: attr.ints([pad, pad]), group: attr.int(d.D),
  });
  y = g.node('Transpose', [g.node('Squeeze', [y, g.ints([0])])], { perm: attr.ints([1, 0]) }); // [T, D]
  if (cw.normType === 'layer_norm') y = eg.layerNorm(y, cw.normGamma, cw.normBeta, `${p}_cln`);
  return eg.linear(eg.silu(y), cw.pw2W, cw.pw2B, d.D, d.D, `${p}_pw2`);
}
