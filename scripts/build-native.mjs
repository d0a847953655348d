// Builds the native addon (native/build/Release/parakeet.node).
//
//   node scripts/build-native.mjs              configure + build
//   node scripts/build-native.mjs --if-missing build only when the addon is absent (npm install)
//   node scripts/build-native.mjs --debug      debug build
//
// Environment:
//   GGML_SOURCE_DIR=/path        build against another ggml checkout
//   PARAKEET_DISTRIBUTABLE=1     loadable ggml backends + every CPU variant, no -march=native, and on
//                                Linux and Windows the Vulkan backend (PARAKEET_VULKAN=0 leaves it out)
//   PARAKEET_VULKAN=1 / PARAKEET_CUDA=1 / PARAKEET_METAL=0|1   GPU backends
//   PARAKEET_SKIP_NATIVE=1       skip (the app then reports that the engine is missing)
//   PARAKEET_BUILD_JOBS=N        parallel compile jobs
//   PARAKEET_BUILD_DIR=path      build folder (default native/build; the app looks there unless PARAKEET_ADDON is set)
//   PARAKEET_BUILD_TESTS=1       also build the engine's C++ tests (native/tests; npm run test:cpp runs them)
//   PARAKEET_GGML_CPU=avx2       ggml's CPU code for any AVX2 CPU instead of -march=native (not with the
//                                distributable; npm run test:emulated builds so for QEMU's AVX2 CPU models)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGgmlSource } from './ggml-source.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const buildDir = resolve(process.env.PARAKEET_BUILD_DIR ?? join(root, 'native', 'build'));
const addonPath = join(buildDir, 'Release', 'parakeet.node');

if (process.env.PARAKEET_SKIP_NATIVE === '1') {
  console.log('[build-native] PARAKEET_SKIP_NATIVE=1: not building the native engine');
  process.exit(0);
}
if (args.has('--if-missing') && existsSync(addonPath)) {
  console.log(`[build-native] ${addonPath} exists; run "npm run build:native" to rebuild`);
  process.exit(0);
}

function flag(name) {
  return process.env[name] === '1' || process.env[name] === 'ON' ? 'ON' : 'OFF';
}

// GPU users on Linux and Windows (NVIDIA, AMD, Intel) get Vulkan in the distributable without a separate
// download; it is a loadable backend there, so a machine without a Vulkan loader still starts on the CPU.
const vulkan = process.env.PARAKEET_VULKAN !== undefined
  ? flag('PARAKEET_VULKAN')
  : flag('PARAKEET_DISTRIBUTABLE') === 'ON' && process.platform !== 'darwin' ? 'ON' : 'OFF';

let source;
try {
  source = ensureGgmlSource();
} catch (error) {
  console.error(`[build-native] could not obtain the ggml source: ${error.message}`);
  console.error('  The build takes ggml from the npm package node-llama-cpp (needs the npm registry and git),');
  console.error('  or from GGML_SOURCE_DIR=/path/to/ggml-or-llama.cpp.');
  process.exit(1);
}

if (vulkan === 'ON' && source.missingPatches.length) {
  console.warn(`[build-native] ${source.source} lacks our ggml guards (${source.missingPatches.join(', ')}; scripts/ggml-patches.mjs):`);
  console.warn('  the Vulkan backend may not compile with older glslc or Vulkan headers (Debian 12).');
}

const defines = {
  PARAKEET_GGML_DIR: source.ggmlDir,
  PARAKEET_GGML_COMMIT: source.commit,
  PARAKEET_GGML_SOURCE: source.source,
  NODE_ADDON_API_DIR: dirname(require.resolve('node-addon-api/napi.h')),
  PARAKEET_DISTRIBUTABLE: flag('PARAKEET_DISTRIBUTABLE'),
  PARAKEET_VULKAN: vulkan,
  PARAKEET_CUDA: flag('PARAKEET_CUDA'),
  PARAKEET_BUILD_TESTS: flag('PARAKEET_BUILD_TESTS'),
};
if (process.env.PARAKEET_METAL !== undefined) defines.PARAKEET_METAL = flag('PARAKEET_METAL');
if (process.env.PARAKEET_GGML_CPU !== undefined) defines.PARAKEET_GGML_CPU = process.env.PARAKEET_GGML_CPU;

const cmakeJs = join(dirname(require.resolve('cmake-js/package.json')), 'bin', 'cmake-js');
const jobs = process.env.PARAKEET_BUILD_JOBS ?? String(Math.max(1, cpus().length));
const cmakeArgs = [
  cmakeJs, 'build',
  '--directory', join(root, 'native'),
  '--out', buildDir,
  '--parallel', jobs,
  ...(args.has('--debug') ? ['--debug'] : []),
  ...Object.entries(defines).map(([key, value]) => `--CD${key}=${value}`),
];
console.log(`[build-native] ggml ${source.version} (${source.commit.slice(0, 12)}, from ${source.source})`);
const result = spawnSync(process.execPath, cmakeArgs, { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('[build-native] the native build failed. It needs CMake ≥ 3.18, a C++17 compiler and git;');
  console.error('  on Debian/Ubuntu: sudo apt-get install cmake ninja-build g++ git');
  process.exit(result.status ?? 1);
}
if (!existsSync(addonPath)) {
  console.error(`[build-native] the build finished but ${addonPath} is missing`);
  process.exit(1);
}
console.log(`[build-native] built ${addonPath}`);
