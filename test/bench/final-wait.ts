// How long a dictation final waits behind a running file job: the engine host
// in its own process with a 110M-shape Q8_0 model (random weights, real
// compute), a final (3 s of speech-like audio at `final` priority) asked for
// `--finals` times with the engine idle, then as often while a file job
// (`--file-sec`, default 120 s, over and over) runs. The wait is the extra time
// over the idle figure; the idle figure is what one final's decode costs.
//
//   node --import tsx test/bench/final-wait.ts [--finals 12] [--file-sec 120] [--threads 0] [--model m.gguf]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import { nullLogger } from '../../app/main/log.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { RATE, meetingLike, speechLike } from '../support/audio/signals.js';
import { benchModel } from './bench-model.js';

const { values } = parseArgs({
  options: {
    finals: { type: 'string', default: '12' },
    'file-sec': { type: 'string', default: '120' },
    threads: { type: 'string', default: '0' },
    model: { type: 'string' },
  },
});

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)} ms (n ${s.length})`;
}

async function main(): Promise<void> {
  const modelPath = values.model ?? benchModel();
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-final-wait-'));
  // A dictation session holds the model (as while the user dictates): the host splits the threads.
  const host = new EngineHost({ mode: 'process', log: nullLogger, inUse: () => true });
  try {
    await host.start();
    const threads = Number(values.threads);
    await host.loadModel(modelPath, threads > 0 ? { threads } : {});
    const segment = speechLike(3, 7);
    const fileSec = Number(values['file-sec']);
    const meeting = meetingLike(fileSec);
    const wav = join(dir, 'meeting.wav');
    writeFileSync(wav, encodeWav16(meeting, RATE));

    const finals = Number(values.finals);
    const final = async (): Promise<number> => {
      const t = performance.now();
      await host.transcribe(segment, {}, { priority: 'final' });
      return performance.now() - t;
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await final(); // warm
    const idle: number[] = [];
    for (let i = 0; i < finals; i += 1) {
      idle.push(await final());
      await pause(300);
    }
    let running = true;
    let files = 0;
    const controller = new AbortController();
    const loop = (async () => {
      while (running) {
        await host.transcribeFile(wav, {}, { signal: controller.signal });
        files += 1;
      }
    })().catch(() => undefined);
    await pause(1500);
    const busy: number[] = [];
    for (let i = 0; i < finals; i += 1) {
      if (!host.fileJobActive) throw new Error('the file job ended before the finals did; use a longer --file-sec');
      busy.push(await final());
      await pause(1500);
    }
    running = false;
    controller.abort();
    await loop;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(
      `final of 3 s, engine idle:          ${stats(idle)}\n` +
        `final of 3 s, file job running:     ${stats(busy)}\n` +
        `wait behind the file job (median):  ${(median(busy) - median(idle)).toFixed(0)} ms (${files} whole files done meanwhile; threads ${host.loadedModel?.threads})\n`,
    );
  } finally {
    await host.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
