// Measures ggml's matmul rate on the CPU for given shapes and weight type, so
// benchmarks can show the encoder's efficiency against the kernel ceiling.
#include <chrono>
#include <ctime>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "compute_backend.h"
#include "parakeet/bench.h"

namespace parakeet {

MatmulBenchResult benchmark_matmul(const std::string & type_name, int out_features, int in_features, int tokens, int n_threads, int iterations,
                                   bool repack) {
    ggml_type type = GGML_TYPE_COUNT;
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const char * name = ggml_type_name(ggml_type(t));
        if (name != nullptr && type_name == name) type = ggml_type(t);
    }
    if (type == GGML_TYPE_COUNT) throw Error(ErrorCode::BadArgument, "unknown ggml type '" + type_name + "'");
    if (in_features % ggml_blck_size(type) != 0) throw Error(ErrorCode::BadArgument, "in_features must be a multiple of the block size");

    DeviceSelection selection = select_device("cpu");
    ComputeBackend backend(selection, n_threads);
    ggml_init_params params = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true};
    ggml_context * wctx = ggml_init(params);
    ggml_tensor * w = ggml_new_tensor_2d(wctx, type, in_features, out_features);
    ggml_backend_buffer_type_t buft = backend.buffer_type();
    if (repack) {
        for (ggml_backend_buffer_type_t b : backend.cpu_extra_buffer_types()) {
            if (std::string(ggml_backend_buft_name(b)).find("REPACK") != std::string::npos) buft = b;
        }
    }
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> wf(size_t(in_features) * size_t(out_features));
    for (float & v : wf) v = dist(rng);
    std::vector<uint8_t> wq(ggml_nbytes(w));
    if (type == GGML_TYPE_F32)
        std::memcpy(wq.data(), wf.data(), wq.size());
    else
        ggml_quantize_chunk(type, wf.data(), wq.data(), 0, out_features, in_features, nullptr);
    ggml_backend_tensor_set(w, wq.data(), 0, wq.size());

    ggml_context * gctx = ggml_init(params);
    ggml_tensor * x = ggml_new_tensor_2d(gctx, GGML_TYPE_F32, in_features, tokens);
    ggml_set_input(x);
    ggml_tensor * y = ggml_mul_mat(gctx, w, x);
    ggml_cgraph * graph = ggml_new_graph(gctx);
    ggml_build_forward_expand(graph, y);
    std::vector<float> xf(size_t(in_features) * size_t(tokens));
    for (float & v : xf) v = dist(rng);

    auto run = [&] {
        backend.compute(
                graph, [&] { ggml_backend_tensor_set(x, xf.data(), 0, xf.size() * sizeof(float)); }, nullptr);
    };
    run();  // warm-up: allocation, first touch
    // Both clocks: wall time for the rate users see, and this thread's CPU time,
    // which on a shared machine is the steadier figure for one thread.
    timespec cpu0{}, cpu1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    const double cpu_seconds = double(cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * double(cpu1.tv_nsec - cpu0.tv_nsec);
    ggml_backend_buffer_free(wbuf);
    ggml_free(gctx);
    ggml_free(wctx);
    MatmulBenchResult r;
    r.seconds_per_call = seconds / iterations;
    r.gflops = 2.0 * double(out_features) * in_features * tokens / r.seconds_per_call / 1e9;
    r.thread_cpu_seconds_per_call = cpu_seconds / iterations;
    return r;
}

}  // namespace parakeet
