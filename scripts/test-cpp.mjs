// Builds and runs the engine's C++ tests (native/tests) with ctest:
//   npm run test:cpp
// The tests build in the addon's build folder, so ggml and the engine are
// compiled once for both: the folder is configured (scripts/build-native.mjs)
// when it is not yet, then PARAKEET_BUILD_TESTS is switched on in its cache,
// the test executable built and every case run as its own ctest test.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = resolve(process.env.PARAKEET_BUILD_DIR ?? join(root, 'native', 'build'));

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.error) {
    console.error(`[test-cpp] could not run ${command} (${result.error.message}); it comes with CMake`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(buildDir, 'CMakeCache.txt'))) {
  run(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { ...process.env, PARAKEET_BUILD_TESTS: '1' });
}
run('cmake', ['-DPARAKEET_BUILD_TESTS=ON', buildDir]);
run('cmake', ['--build', buildDir, '--target', 'parakeet_engine_tests']);
run('ctest', ['--test-dir', buildDir, '--output-on-failure']);
