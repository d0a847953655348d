// Prints the engine's kernel registry as a markdown table (native/tests/tools/kernel_table.cpp):
//   npm run docs:kernel-table
// It builds in the addon's build folder beside the C++ tests (native-test-build.mjs).
import { join } from 'node:path';
import { buildDir, buildTestTarget, run } from './native-test-build.mjs';

buildTestTarget('kernel-table', 'parakeet_kernel_table');
run('kernel-table', join(buildDir, 'tests', process.platform === 'win32' ? 'parakeet_kernel_table.exe' : 'parakeet_kernel_table'), []);
