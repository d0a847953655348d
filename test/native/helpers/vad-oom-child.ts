// Child for silero-vad.test.ts: runs under a data-size limit (ulimit -d) and hands a VAD stream more samples
// than the engine can copy. Prints how the call ended and whether the stream still works after it; a native
// crash is seen by the parent as a signal instead.
import { VadModel } from '../../../native/index.js';

const [gguf, count] = process.argv.slice(2);
const vad = await VadModel.load(gguf!);
const stream = vad.createStream(16000);
const huge = new Float32Array(Number(count));
let outcome: string;
try {
  outcome = `resolved ${(await stream.process(huge)).length}`;
} catch (error) {
  outcome = `rejected ${(error as { code?: string }).code}: ${(error as Error).message}`;
}
const after = (await stream.process(new Float32Array(1024))).length;
stream.dispose();
vad.dispose();
process.stdout.write(`${JSON.stringify({ outcome, after })}\n`);
