// The addon's build folder with the C++ test targets switched on, shared by test-cpp.mjs and
// bench-kernels.mjs: ggml and the engine are compiled once for the addon, the tests and the benches.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const buildDir = resolve(process.env.PARAKEET_BUILD_DIR ?? join(root, 'native', 'build'));

/** Runs a command in the repo root; exits this script with its status when it fails or cannot start. */
export function run(tag, command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.error) {
    console.error(`[${tag}] could not run ${command} (${result.error.message}); it comes with CMake`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Configures the build folder (scripts/build-native.mjs) when it is not yet, switches PARAKEET_BUILD_TESTS on, builds `target`. */
export function buildTestTarget(tag, target) {
  if (!existsSync(join(buildDir, 'CMakeCache.txt'))) {
    run(tag, process.execPath, [join(root, 'scripts', 'build-native.mjs')], { ...process.env, PARAKEET_BUILD_TESTS: '1' });
  }
  run(tag, 'cmake', ['-DPARAKEET_BUILD_TESTS=ON', buildDir]);
  run(tag, 'cmake', ['--build', buildDir, '--target', target]);
}
