// The known-answer device self-test's engine-process half: runs the fixed
// signal through the model on the device under test and through a CPU
// reference, then asks self-test.ts for the verdict. Testing the CPU, the
// reference is a second state of the same model (the other graph executor,
// the same weights: nothing is loaded); testing a GPU, it is a CPU model of
// the same file (a validation's when one is at hand, else loaded and mapped).
// Compute runs on native threads; only the comparison (a few thousand floats)
// runs in JavaScript.
import type { LoadOptions, Model, ModelState, TranscribeResult } from '../../native/index.js';
import type { DeviceSelfTest, SelfTestSpeed } from '../ipc/contract.js';
import { type SelfTestCorruption } from './protocol.js';
import { CodedError } from '../../types/errors.js';
import { SELF_TEST_RATE, judge, selfTestSignal, toleranceFor, type SelfTestRun } from './self-test.js';

export interface SelfTestRequest {
  /** The engine's resident model: its file and load options are the ones tested. */
  resident: Model;
  /** The state the resident model's transcriptions run on (its thread count is the activation's). */
  residentState?: ModelState;
  /** The resident model's file (its info().path may be the name it was validated under). */
  path: string;
  /** Loads a model file (the engine's loader). */
  load: (path: string, options: LoadOptions) => Promise<Model>;
  /** A CPU model of the same file already loaded, if any (it then belongs to the self-test, which frees it). */
  cpuCopy?: () => Model | null;
  /** Device to test; absent = the resident model's device. */
  device?: string;
  trigger: DeviceSelfTest['trigger'];
  /** Test hook: corrupt the device run's output before the comparison (a broken kernel, on demand). */
  corrupt?: SelfTestCorruption | null;
  signal?: AbortSignal;
  /** Measure each side's speed after the verdict (default true; a converted file's check needs no speed). */
  measureSpeed?: boolean;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function capture(result: TranscribeResult): SelfTestRun {
  const encoder = result.encoder;
  if (!encoder) throw new CodedError('INTERNAL', 'the engine returned no encoder output for the self-test');
  return { encoder: encoder.data, validFrames: encoder.validFrames, dim: encoder.dim, tokens: result.tokens.map((t) => t.id) };
}

/** What a broken kernel would hand back: same size, unrelated values (or NaN). Deterministic. */
function corrupted(run: SelfTestRun, how: SelfTestCorruption): SelfTestRun {
  const data = Float32Array.from(run.encoder);
  if (how === 'nan') {
    data.fill(Number.NaN, data.length >> 1);
  } else {
    let energy = 0;
    for (const v of data) energy += v * v;
    const rms = Math.sqrt(energy / Math.max(1, data.length)) || 1;
    let s = 0x9e3779b9;
    for (let i = 0; i < data.length; i += 1) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      data[i] = rms * Math.sqrt(3) * (2 * (s / 0x1_0000_0000) - 1);
    }
  }
  return { ...run, encoder: data };
}

/** Runs of each side the speed comparison keeps the fastest of (one slow run on a busy machine is noise). */
const SPEED_RUNS = 2;

/**
 * The speed comparison: the signal decoded again on the tested device and on the reference, alternating,
 * the fastest run of each. After the verdict's run, so a GPU's first-use pipeline compilation is not in it.
 */
async function measureSpeed(
  tested: Model | ModelState, reference: Model | ModelState, pcm: Float32Array, signal?: AbortSignal,
): Promise<SelfTestSpeed> {
  let deviceMs = Infinity;
  let referenceMs = Infinity;
  for (let run = 0; run < SPEED_RUNS; run += 1) {
    deviceMs = Math.min(deviceMs, await timed(() => tested.transcribe(pcm, { signal })));
    referenceMs = Math.min(referenceMs, await timed(() => reference.transcribe(pcm, { signal })));
  }
  return { audioMs: Math.round((pcm.length / SELF_TEST_RATE) * 1000), deviceMs: round2(deviceMs), referenceMs: round2(referenceMs) };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const round2 = (ms: number): number => Math.round(ms * 100) / 100;

export async function runSelfTest(request: SelfTestRequest): Promise<DeviceSelfTest> {
  const started = performance.now();
  const info = { ...request.resident.info(), threads: request.residentState?.info().threads ?? request.resident.info().threads };
  const load = { threads: info.threads, weightType: info.weightType, signal: request.signal };
  const wanted = request.device ?? info.device.device.name;
  // Another device than the resident's: a second, short-lived model on it (the resident stays as it is).
  let tested: Model = request.resident;
  let testedRun: Model | ModelState = request.residentState ?? request.resident;
  let owned: Model | null = null;
  let referenceModel: Model | null = null;
  let referenceState: ModelState | null = null;
  try {
    if (!same(wanted, info.device.device.name)) {
      owned = await request.load(request.path, { ...load, device: wanted });
      tested = testedRun = owned;
    }
    const testedInfo = tested.info();
    if (testedInfo.device.fellBack || !same(testedInfo.device.device.name, wanted)) {
      throw new CodedError('DEVICE_UNAVAILABLE', `${wanted} could not be used for the self-test: ${testedInfo.device.reason || 'not available'}`);
    }
    const deviceIsCpu = testedInfo.device.device.type === 'cpu';
    let reference: Model | ModelState;
    if (deviceIsCpu) {
      // The same weights through the other graph executor (ggml_backend_sched instead of the direct gallocr
      // path, or the reverse): a state, so nothing is loaded or copied.
      reference = referenceState = tested.createState({ alwaysSchedule: !testedInfo.scheduled });
    } else {
      reference = referenceModel = request.cpuCopy?.() ?? await request.load(request.path, { ...load, device: 'cpu' });
    }
    const pcm = selfTestSignal();
    const deviceRun = capture(await testedRun.transcribe(pcm, { captureEncoder: true, signal: request.signal }));
    const referenceRun = capture(await reference.transcribe(pcm, { captureEncoder: true, signal: request.signal }));
    const verdict = judge(
      request.corrupt ? corrupted(deviceRun, request.corrupt) : deviceRun,
      referenceRun,
      toleranceFor(testedInfo.weightTypes, deviceIsCpu),
      deviceIsCpu ? { name: 'the scheduler path on the CPU', possessive: "the scheduler path's on the CPU" } : { name: 'the CPU', possessive: "the CPU's" },
    );
    // A wrong device's speed means nothing (and a broken one may not be worth running again).
    const speed = verdict.passed && request.measureSpeed !== false ? await measureSpeed(testedRun, reference, pcm, request.signal) : undefined;
    return {
      device: testedInfo.device.device.name,
      reference: deviceIsCpu ? 'cpu-scheduled' : 'cpu',
      trigger: request.trigger,
      ...verdict,
      ...(speed ? { speed } : {}),
      durationMs: Math.round(performance.now() - started),
      at: new Date().toISOString(),
    };
  } finally {
    referenceState?.dispose();
    referenceModel?.dispose();
    owned?.dispose();
  }
}

/**
 * A converted model's check before it is offered (a `.nemo` import): the known-answer self-test of the
 * file on the CPU, both graph executors over the fixed signal. A conversion that wrote garbage (NaN or
 * infinite weights, a tensor in the wrong layout that blows up) fails here, where a load alone passes.
 * Throws MODEL_INVALID with what the test found; the caller then removes the file.
 */
export async function selfTestConverted(
  model: Model, path: string, load: SelfTestRequest['load'], signal?: AbortSignal,
): Promise<DeviceSelfTest> {
  let result: DeviceSelfTest;
  try {
    result = await runSelfTest({ resident: model, path, load, trigger: 'load', signal, measureSpeed: false });
  } catch (error) {
    if (signal?.aborted || (error instanceof CodedError && error.code !== 'INTERNAL')) throw error;
    // judge() throws when the CPU reference itself is not finite: the converted weights are broken.
    throw new CodedError('MODEL_INVALID', `the converted model failed the engine's self-test: ${(error as Error).message}`);
  }
  if (!result.passed) throw new CodedError('MODEL_INVALID', `the converted model failed the engine's self-test on the CPU: ${result.detail}`);
  return result;
}
