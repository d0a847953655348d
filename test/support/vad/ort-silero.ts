// Silero VAD through ONNX Runtime on an official ONNX file, chunk by chunk as silero-vad's OnnxWrapper
// feeds it: input = context | chunk (64 | 512 at 16 kHz, 32 | 256 at 8 kHz), state (2, 1, 128), sr; the
// next context is the input's last samples, the next state the output stateN. A short tail is zero-padded.
import * as ort from 'onnxruntime-node';

export async function ortSileroProbs(onnxPath: string, pcm: Float32Array, sampleRate: 16000 | 8000): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(onnxPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const chunk = sampleRate === 16000 ? 512 : 256;
  const context = sampleRate === 16000 ? 64 : 32;
  const chunks = Math.ceil(pcm.length / chunk);
  const probs = new Float32Array(chunks);
  let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), []);
  const window = new Float32Array(context + chunk);
  for (let i = 0; i < chunks; i++) {
    window.fill(0, context);
    window.set(pcm.subarray(i * chunk, Math.min(pcm.length, (i + 1) * chunk)), context);
    const out = await session.run({ input: new ort.Tensor('float32', window.slice(), [1, window.length]), state, sr });
    probs[i] = (out.output!.data as Float32Array)[0]!;
    state = out.stateN as ort.Tensor;
    window.copyWithin(0, chunk);
  }
  await session.release();
  return probs;
}
