// Loads and peak memory of one activation, as the app does it: the engine core
// validates a file under a temporary name (an import or a download), the file
// is renamed, then activated on the CPU and used once. Prints
//   loads per activation: N
//   peak RSS: … MiB
// Run it in a fresh process per figure (peak RSS is the process's):
//   node --import tsx test/bench/activation-loads.ts [--model file.gguf] [--root checkout]
// --root measures another checkout's engine core the same way (before/after comparisons).
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface LoadableModel {
  load: (...args: unknown[]) => Promise<unknown>;
}
interface Core {
  start(): void;
  handle(message: unknown): void;
  dispose(): void;
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const root = resolve(option('root', '.'));
const model = resolve(option('model', join(root, '.cache', 'bench', 'models', 'random-110m-q8_0.gguf')));
const nativeApi = (await import(pathToFileURL(join(root, 'native', 'index.ts')).href)) as { Model: LoadableModel };
const { EngineCore } = (await import(pathToFileURL(join(root, 'app', 'engine-process', 'engine-core.ts')).href)) as {
  EngineCore: new (post: (m: { t: string; id?: number; ok?: boolean; value?: unknown; error?: unknown }) => void, o: object) => Core;
};

// Counted where every engine path loads a file, whatever the checkout's engine core looks like.
let loads = 0;
const load = nativeApi.Model.load.bind(nativeApi.Model);
nativeApi.Model.load = (...args: unknown[]) => {
  loads += 1;
  return load(...args);
};

const waiting = new Map<number, (m: { ok?: boolean; value?: unknown; error?: unknown }) => void>();
const core = new EngineCore((m) => {
  if (m.t === 'result' && m.id !== undefined) waiting.get(m.id)?.(m);
}, { testHooks: false });
core.start();
let nextId = 1;
function request(body: Record<string, unknown>): Promise<unknown> {
  const id = nextId++;
  return new Promise((res, rej) => {
    waiting.set(id, (m) => (m.ok ? res(m.value) : rej(new Error(JSON.stringify(m.error)))));
    core.handle({ ...body, id });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'activation-loads-'));
try {
  const partial = join(dir, 'model.gguf.partial');
  const final = join(dir, 'model.gguf');
  copyFileSync(model, partial);
  const started = performance.now();
  await request({ op: 'validate', path: partial });
  renameSync(partial, final);
  await request({ op: 'load', path: final, options: { device: 'cpu', threads: 1 } });
  await request({ op: 'transcribe', pcm: new Float32Array(32000).map((_, i) => 0.2 * Math.sin(i / 7)), options: {} });
  const ms = performance.now() - started;
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(`root: ${root}`);
  console.log(`model: ${model}`);
  console.log(`loads per activation: ${loads}`);
  console.log(`peak RSS: ${peak.toFixed(0)} MiB; RSS after: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB; validate → activate → 2 s decode: ${ms.toFixed(0)} ms`);
} finally {
  core.dispose();
  rmSync(dir, { recursive: true, force: true });
}
