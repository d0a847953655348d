// Builds and runs the kernel-rate benchmark (native/tests/bench/kernel_rates.cpp):
//   npm run bench:kernels
// It builds in the addon's build folder beside the C++ tests (native-test-build.mjs), then prints
// VPDPBUSD's throughput, the Q8_0 block step's cap and the engine's int8 GEMM rates on this CPU.
import { join } from 'node:path';
import { buildDir, buildTestTarget, run } from './native-test-build.mjs';

buildTestTarget('bench-kernels', 'parakeet_kernel_rates');
// `-- --streamed`: only the Q8_0 feed-forward pairs (VNNI, then AMX) with their weights from DRAM;
// `-- --tile`: only the VNNI Q8_0 kernel on cache-resident operands; `-- --ymm [--quick]`: the Q8_0
// kernels of every width this CPU runs against ggml's stock Q8_0 matmul; `-- --ports`: AVX2's ways to sum
// 8-bit products (exact s8·s8, ONNX Runtime's u8·s8, 16-bit, F32) in registers; `-- --q8-dot-forms`:
// q8_0_avx2's two dot forms on the same weights, alternated (kernel_rates.cpp).
run('bench-kernels', join(buildDir, 'tests', process.platform === 'win32' ? 'parakeet_kernel_rates.exe' : 'parakeet_kernel_rates'), process.argv.slice(2));
