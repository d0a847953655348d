// `npm run build:vad` (part of `npm run build`): converts the pinned Silero VAD v6.2 ONNX into
// dist/vad/, the GGUF the app and the CLI load as the bundled VAD (electron-builder ships dist/**).
import { builtVadPath, convertBundledVad } from './bundled-silero.js';

const target = builtVadPath();
await convertBundledVad(target);
process.stdout.write(`[build:vad] ${target}\n`);
