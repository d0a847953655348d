// Measurement helpers for benchmark scripts (not needed to transcribe).
#pragma once

#include <string>

namespace parakeet {

struct MatmulBenchResult {
    double seconds_per_call = 0;
    double gflops = 0;
    double thread_cpu_seconds_per_call = 0;  // CPU time of the calling thread (all of the work when n_threads == 1)
};

/**
 * ggml mul_mat on the CPU: weight [out, in] of `type` ("f32", "f16", "bf16",
 * "q8_0", "q4_0", …) times activations [in, tokens] in F32. `repack` places
 * the weight in the CPU's repacking buffer type where ggml supports it.
 */
MatmulBenchResult benchmark_matmul(const std::string & type, int out_features, int in_features, int tokens, int n_threads, int iterations,
                                   bool repack);

}  // namespace parakeet
