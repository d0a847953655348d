// Transcribes one clip on the CPU and prints one line of JSON: the text, the token ids and frames, the
// engine kernels that ran (ModelInfo.kernels) and the CPU device's features. Plain JavaScript on the raw
// addon (no TypeScript loader, no dist/), so scripts/test-emulated.mjs runs the same file natively and under
// qemu-x86_64 with another CPU model: the addon is loaded and decodes inside the emulated CPU.
//
//   node scripts/emulated-transcribe.mjs <parakeet.node> <model.gguf> <clip.f32: 16 kHz mono float32 LE> [weightType]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

const [addonPath, modelPath, clipPath, weightType = 'auto'] = process.argv.slice(2);
if (!clipPath) {
  console.error('usage: node scripts/emulated-transcribe.mjs <parakeet.node> <model.gguf> <clip.f32> [weightType]');
  process.exit(2);
}
const addon = createRequire(import.meta.url)(addonPath);
addon.loadBackends(dirname(addonPath));
const bytes = readFileSync(clipPath);
const pcm = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

const model = await addon.loadModel(modelPath, { device: 'cpu', threads: 2, weightType });
const result = await model.transcribe(pcm, {});
const cpu = addon.listDevices().find((device) => device.type === 'cpu');
console.log(JSON.stringify({
  text: result.text,
  tokens: result.tokens.map((token) => [token.id, token.frame]),
  kernels: model.info().kernels,
  cpuFeatures: cpu ? cpu.cpuFeatures : [],
}));
model.dispose();
