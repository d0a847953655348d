// The known-answer device self-test's pure half: the fixed input signal, the
// tolerance for the weights as placed, and the verdict from two runs of the
// same model (the device under test and a CPU twin). No addon, no Electron:
// the engine process runs the models (self-test-run.ts) and calls this.
//
// Why a comparison and not stored answers: the user's model is any GGUF, so
// there is no precomputed output for it; the CPU path of the same file is the
// independent answer (for the CPU itself: the same path forced through
// ggml_backend_sched, a second code path through the graph executor).
import type { DeviceSelfTest } from '../ipc/contract.js';

export const SELF_TEST_RATE = 16_000;
/** Long enough for a dozen encoder frames (0.08 s each), short enough to cost two brief encodes. */
export const SELF_TEST_SECONDS = 1;

/**
 * Encoder relative L2 allowed when the CPU is tested: both sides run the same CPU kernels and only the
 * graph executor differs (gallocr vs ggml_backend_sched), so they agree to rounding; measured: exactly 0
 * for F32, F16 and Q8_0 weights. This is the F32 bound of test/native/quantization.test.ts.
 */
export const CPU_TOLERANCE = 1e-4;

/**
 * Encoder relative L2 allowed between another device and the CPU, by the loosest weight type as placed
 * (ModelInfo.weightTypes). A GPU backend legitimately computes in another precision: ggml-cuda runs F32
 * matmuls with TF32 tensor-op math and F16 ones with F16 compute, Vulkan may accumulate in F16. On the
 * random-weight 110M and 0.6B shapes (17 and 24 layers, which amplify rounding far more than trained
 * weights), rounding every matmul weight to F16 moves the encoder output of the self-test signal by
 * 1.3e-2 and 1.9e-2; 8-bit activation rounding (quantized weights: CPU q8_0/q8_K vs GPU q8_1) is of the
 * order of the Q8_0 bounds in quantization.test.ts. A broken kernel gives garbage (≈1.4: unrelated values
 * of the same size) or NaN, which fail either way.
 */
export const DEVICE_TOLERANCE = { float: 3e-2, quantized: 1e-1 } as const;

/**
 * Tokens may differ by this many edits while the encoder agrees within the tolerance: a greedy decision
 * between two nearly tied tokens can flip under an allowed precision difference. A broken kernel in the
 * head (the projection after the captured encoder output) changes most tokens, not one.
 */
export const TOKEN_SLACK = 1;

export type PrecisionClass = keyof typeof DEVICE_TOLERANCE;

/** The loosest precision among the placed weight types ("f32", "f16", "bf16", "q8_0", "q4_K", …). */
export function precisionOf(weightTypes: Readonly<Record<string, number>>): PrecisionClass {
  for (const [type, count] of Object.entries(weightTypes)) {
    const t = type.toLowerCase();
    if (count && t !== 'f32' && t !== 'f16' && t !== 'bf16') return 'quantized';
  }
  return 'float';
}

export function toleranceFor(weightTypes: Readonly<Record<string, number>>, deviceIsCpu: boolean): number {
  return deviceIsCpu ? CPU_TOLERANCE : DEVICE_TOLERANCE[precisionOf(weightTypes)];
}

/**
 * The input: a fixed ~1 s signal, the same on every machine. Harmonics of a 140 Hz "voice" and two
 * formant-like tones under a syllable-rate envelope, plus seeded noise, so the log-mel has structure in
 * every band (a pure tone would leave most mel bins at the noise floor and test little of the encoder).
 */
export function selfTestSignal(): Float32Array {
  const n = SELF_TEST_RATE * SELF_TEST_SECONDS;
  const out = new Float32Array(n);
  const noise = xorshift32(0x5e1f7e57);
  for (let i = 0; i < n; i += 1) {
    const t = i / SELF_TEST_RATE;
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    let voiced = 0;
    for (let h = 1; h <= 6; h += 1) voiced += Math.sin(2 * Math.PI * 140 * h * t) / h;
    const formants = 0.35 * Math.sin(2 * Math.PI * 730 * t) + 0.25 * Math.sin(2 * Math.PI * 2400 * t);
    out[i] = 0.25 * envelope * (0.5 * voiced + formants) + 0.03 * (noise() - 0.5);
  }
  return out;
}

/** Seeded uniform [0, 1) generator (xorshift32): the same samples on every machine and run. */
export function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

/** What one run contributes to the comparison. */
export interface SelfTestRun {
  /** Encoder output [frames][dim], frames past `validFrames` are padding. */
  encoder: Float32Array;
  validFrames: number;
  dim: number;
  tokens: readonly number[];
}

export function allFinite(values: ArrayLike<number>, count = values.length): boolean {
  for (let i = 0; i < count; i += 1) if (!Number.isFinite(values[i]!)) return false;
  return true;
}

/** ‖got − ref‖₂ / ‖ref‖₂ over the first `count` values, accumulated in float64; 0 when both are all zero. */
export function relativeL2(ref: ArrayLike<number>, got: ArrayLike<number>, count: number): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i += 1) {
    const d = got[i]! - ref[i]!;
    num += d * d;
    den += ref[i]! * ref[i]!;
  }
  if (den === 0) return num === 0 ? 0 : Number.POSITIVE_INFINITY;
  return Math.sqrt(num / den);
}

/** Levenshtein distance between two token id sequences. */
export function tokenEdits(a: readonly number[], b: readonly number[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

export type SelfTestVerdict = Pick<DeviceSelfTest, 'passed' | 'relL2' | 'tokensMatch' | 'tolerance' | 'detail'>;

/** "2.1e-7", "0.83", "0": short and honest at every magnitude. */
export function formatError(value: number): string {
  if (value === 0) return '0';
  return value < 1e-3 ? value.toExponential(1) : value.toPrecision(2);
}

/** How the reference is named in the detail: "matches the CPU", "differs from the CPU's". */
export interface ReferenceName {
  name: string;
  possessive: string;
}

/**
 * The verdict. Non-finite output on the device always fails; non-finite output from the reference is not
 * the device's fault and throws instead (the model itself is broken, and no device would do better).
 */
export function judge(device: SelfTestRun, reference: SelfTestRun, tolerance: number, against: ReferenceName): SelfTestVerdict {
  const refCount = reference.validFrames * reference.dim;
  if (!allFinite(reference.encoder, refCount)) {
    throw new Error(`the reference run (${against.name}) produced NaN or infinity itself; the model file is probably broken`);
  }
  const tokensMatch = device.tokens.length === reference.tokens.length && device.tokens.every((t, i) => t === reference.tokens[i]);
  const base = { tokensMatch, tolerance };
  if (device.validFrames !== reference.validFrames || device.dim !== reference.dim) {
    return {
      ...base, passed: false, relL2: null,
      detail: `its output has another shape than ${against.possessive} (${device.validFrames}×${device.dim} vs ` +
        `${reference.validFrames}×${reference.dim}); results on it would be wrong`,
    };
  }
  const count = device.validFrames * device.dim;
  if (!allFinite(device.encoder, count)) {
    return { ...base, passed: false, relL2: null, detail: 'its output holds NaN or infinity; results on it would be wrong' };
  }
  const relL2 = relativeL2(reference.encoder, device.encoder, count);
  if (!(relL2 <= tolerance)) {
    return {
      ...base, passed: false, relL2: Number.isFinite(relL2) ? relL2 : null,
      detail: `its output differs from ${against.possessive} (relative error ${formatError(relL2)}, allowed ${formatError(tolerance)}); ` +
        'results on it would be wrong',
    };
  }
  const edits = tokenEdits(reference.tokens, device.tokens);
  if (edits > TOKEN_SLACK) {
    return {
      ...base, passed: false, relL2,
      detail: `its tokens differ from ${against.possessive} (${edits} edits over ${Math.max(reference.tokens.length, device.tokens.length)} tokens); ` +
        'results on it would be wrong',
    };
  }
  const tokens = tokensMatch ? 'same tokens' : 'one token differs (a near tie within the allowed precision)';
  return { ...base, passed: true, relL2, detail: `matches ${against.name}: relative error ${formatError(relL2)}, ${tokens}` };
}
