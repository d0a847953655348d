// Builds and runs the engine's C++ tests (native/tests) with ctest:
//   npm run test:cpp
// The tests build in the addon's build folder, so ggml and the engine are
// compiled once for both: the folder is configured (scripts/build-native.mjs)
// when it is not yet, then PARAKEET_BUILD_TESTS is switched on in its cache,
// the test executable built and every case run as its own ctest test.
import { buildDir, buildTestTarget, run } from './native-test-build.mjs';

buildTestTarget('test-cpp', 'parakeet_engine_tests');
run('test-cpp', 'ctest', ['--test-dir', buildDir, '--output-on-failure']);
