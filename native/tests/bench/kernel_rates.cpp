// Kernel rates on this CPU, one thread (npm run bench:kernels): what the VNNI units can do and how
// close the engine's int8 GEMMs come, measured in one process so the figures compare.
//
//   peak       VPDPBUSD alone, 12 independent chains in registers (the instruction's throughput);
//   q8 step    the Q8_0 kernel's instruction mix per block in registers: 96 VPDPBUSD, then per
//              accumulator a convert, a multiply (row scales × the frame's) and an FMA: the cap
//              that exact per-32 block scaling puts on the Q8_0 kernel; and the same without
//              the multiply (what one scale constant along K would allow), and the whole step
//              with its loads from L1 (what the kernel's broadcasts and loads cost);
//   fma        VFMADD231PS alone (the F32 kernels' instruction);
//   kernels    the Q8_0 (file-exact) and per-channel int8 GEMMs as ggml nodes: 12 independent
//              products of one quantized activation tensor per graph run, at the encoder's
//              shapes, in G VPDPBUSD/s (frames · rows · inputs / 64 per product).
//   --i16      the 14-bit kernels of every width this CPU runs (i16_avx2, i16_avx_vnni, i16_vnni)
//              beside the exact F32 ones (f32_avx2, f32_avx512): whether 'auto' should run F32
//              files on 14-bit integers on a class. Each product quantizes its own activations.
//   --ports    AVX2's ways to sum 8-bit products exactly (sign-taking s8·s8, ORT's u8·s8, 16-bit,
//              F32), in multiply-adds per cycle: why the exact Q8_0 and int8 cells have a lower
//              ceiling than ONNX Runtime's saturating u8·s8 on an AVX2-only CPU.
//   --q8-dot-forms  q8_0_avx2's two dot forms (q8_0_ymm_tile.inc) on the same weights, alternated in
//              one process: x's sign on |w| (where a weight is −128) and w's sign on |x| (otherwise),
//              at the encoders' shapes, 125 frames: what the second form gains.
//   --cpu-time (before the mode) times with the process's CPU time instead of the wall clock: on
//              a machine shared with other work, time spent waiting for a core does not count
//              (caches and memory bandwidth are still shared).
//
// Not a test: ctest never runs it. AVX512-VNNI CPUs only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../aligned_bytes.h"
#include "amx.h"
#include "cpu_ops.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "f32_avx512.h"
#include "i16_vnni.h"
#include "int8_channel_vnni.h"
#include "q8_0_vnni.h"
#include "amx_bf16.h"
#include "weight_buffer.h"
#include "simd_math.h"

using namespace parakeet;

namespace {

using Clock = std::chrono::steady_clock;

bool g_cpu_time = false;  // --cpu-time

/** Now, in seconds: the wall clock, or (--cpu-time) the CPU time this process has used. */
double now_seconds() {
    if (g_cpu_time) return double(std::clock()) / CLOCKS_PER_SEC;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

/** The best of `reps` timings of fn(), in seconds; each rep runs fn() until 0.1 s have passed, per call. */
double best_seconds_per_call(const std::function<void()> & fn, int reps = 5) {
    fn();  // warm-up
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        int calls = 0;
        const double start = now_seconds();
        double elapsed = 0;
        do {
            fn();
            ++calls;
            elapsed = now_seconds() - start;
        } while (elapsed < 0.1);
        best = std::min(best, elapsed / calls);
    }
    return best;
}

constexpr int64_t kLoop = 1 << 16;

// The register loops are whole asm blocks on fixed registers: through intrinsics GCC kept an
// array of accumulators in memory (a store and a load around every instruction), and it may hoist
// a loop-invariant asm statement out of the loop. Register contents are whatever they hold: only
// the instructions' throughput is measured.
// Every vector register: each loop's clobber list.
#define PARAKEET_ALL_ZMM                                                                                                                           \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", \
            "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"

PARAKEET_VNNI512 void vpdpbusd_peak() {
    for (int64_t n = 0; n < kLoop; ++n)
        __asm__ volatile(
                "vpdpbusd %%zmm30, %%zmm31, %%zmm0\nvpdpbusd %%zmm30, %%zmm31, %%zmm1\nvpdpbusd %%zmm30, %%zmm31, %%zmm2\nvpdpbusd %%zmm30, %%zmm31, "
                "%%zmm3\nvpdpbusd %%zmm30, %%zmm31, %%zmm4\nvpdpbusd %%zmm30, %%zmm31, %%zmm5\nvpdpbusd %%zmm30, %%zmm31, %%zmm6\nvpdpbusd %%zmm30, "
                "%%zmm31, %%zmm7\nvpdpbusd %%zmm30, %%zmm31, %%zmm8\nvpdpbusd %%zmm30, %%zmm31, %%zmm9\nvpdpbusd %%zmm30, %%zmm31, %%zmm10\nvpdpbusd "
                "%%zmm30, %%zmm31, %%zmm11" ::
                        : PARAKEET_ALL_ZMM);
}

// The Q8_0 block step's pieces, as asm text: the 12 dot products reset to the block's start, then
// 8 groups × 12 VPDPBUSD (rows' weights in zmm24/25, the frame's broadcast in zmm26).
#define PARAKEET_Q8_RESET(i) "vmovdqa64 %%zmm27, %%zmm" #i "\n"
#define PARAKEET_Q8_DOTS \
    PARAKEET_Q8_RESET(0) PARAKEET_Q8_RESET(1) PARAKEET_Q8_RESET(2) PARAKEET_Q8_RESET(3) PARAKEET_Q8_RESET(4)                  \
    PARAKEET_Q8_RESET(5) PARAKEET_Q8_RESET(6) PARAKEET_Q8_RESET(7) PARAKEET_Q8_RESET(8) PARAKEET_Q8_RESET(9)                  \
    PARAKEET_Q8_RESET(10) PARAKEET_Q8_RESET(11)                                                                              \
    ".rept 8\nvpdpbusd %%zmm24, %%zmm26, %%zmm0\nvpdpbusd %%zmm25, %%zmm26, %%zmm1\nvpdpbusd %%zmm24, %%zmm26, %%zmm2\n"     \
    "vpdpbusd %%zmm25, %%zmm26, %%zmm3\nvpdpbusd %%zmm24, %%zmm26, %%zmm4\nvpdpbusd %%zmm25, %%zmm26, %%zmm5\n"               \
    "vpdpbusd %%zmm24, %%zmm26, %%zmm6\nvpdpbusd %%zmm25, %%zmm26, %%zmm7\nvpdpbusd %%zmm24, %%zmm26, %%zmm8\n"               \
    "vpdpbusd %%zmm25, %%zmm26, %%zmm9\nvpdpbusd %%zmm24, %%zmm26, %%zmm10\nvpdpbusd %%zmm25, %%zmm26, %%zmm11\n.endr\n"
// Accumulator `acc` += float(dot i) · (rows' scales zmm`s` · the frame's zmm30), as add_scaled_block.
#define PARAKEET_Q8_SCALE(i, acc, s) \
    "vcvtdq2ps %%zmm" #i ", %%zmm" #i "\nvmulps %%zmm30, %%zmm" #s ", %%zmm31\nvfmadd231ps %%zmm31, %%zmm" #i ", %%zmm" #acc "\n"
// The same with one scale only: accumulator += float(dot i) · zmm`s`.
#define PARAKEET_Q8_ONE_SCALE(i, acc, s) "vcvtdq2ps %%zmm" #i ", %%zmm" #i "\nvfmadd231ps %%zmm" #s ", %%zmm" #i ", %%zmm" #acc "\n"
#define PARAKEET_Q8_TAIL(STEP)                                                                                                                      \
    STEP(0, 12, 28)                                                                                                                                 \
    STEP(1, 13, 29) STEP(2, 14, 28) STEP(3, 15, 29) STEP(4, 16, 28) STEP(5, 17, 29) STEP(6, 18, 28) STEP(7, 19, 29) STEP(8, 20, 28) STEP(9, 21, 29) \
            STEP(10, 22, 28) STEP(11, 23, 29)

// One Q8_0 block of a 6-frame × 32-row tile (q8_0_vnni.cpp gemm_tile, add_scaled_block), every
// operand in a register: the dot products, then per accumulator a convert, the multiply of the
// rows' scales by the frame's and an FMA.
PARAKEET_VNNI512 void q8_block_step() {
    for (int64_t n = 0; n < kLoop / 8; ++n) __asm__ volatile(PARAKEET_Q8_DOTS PARAKEET_Q8_TAIL(PARAKEET_Q8_SCALE)::: PARAKEET_ALL_ZMM);
}

// The same block step without the multiply of the rows' scales by the frame's: what the kernel
// could run at if one of the two scales were constant along K (per-row activations, say, which
// ggml's Q8_0 numerics do not have). Measures what that one multiply per accumulator costs.
PARAKEET_VNNI512 void q8_block_step_one_scale() {
    for (int64_t n = 0; n < kLoop / 8; ++n) __asm__ volatile(PARAKEET_Q8_DOTS PARAKEET_Q8_TAIL(PARAKEET_Q8_ONE_SCALE)::: PARAKEET_ALL_ZMM);
}

// The same block step with every operand loaded as gemm_tile loads it, from L1 (zeroed buffers,
// so no subnormal ever forms): the 12 dot starts and the 48 activation groups broadcast from
// memory, 16 weight vectors, the rows' 2 scale vectors and the frames' 6 scales. Against the
// register step, this is what the kernel's loads cost on this CPU; what the graph rate loses
// beyond it lies outside the block loop (L2/L3 misses, the epilogue, tile edges).
#define PARAKEET_Q8_L1_RESET(i, f) "vpbroadcastd " #f "*4(%%rdx), %%zmm" #i "\n"
#define PARAKEET_Q8_L1_GROUP(f, d0, d1) \
    "vpbroadcastd (" #f "*256+\\g*4)(%%rcx), %%zmm26\nvpdpbusd %%zmm24, %%zmm26, %%zmm" #d0 "\nvpdpbusd %%zmm25, %%zmm26, %%zmm" #d1 "\n"
#define PARAKEET_Q8_L1_SCALE(f, d0, d1, a0, a1) \
    "vbroadcastss (" #f "*256+200)(%%rcx), %%zmm30\n" PARAKEET_Q8_SCALE(d0, a0, 28) PARAKEET_Q8_SCALE(d1, a1, 29)
#define PARAKEET_Q8_L1_STEP \
    PARAKEET_Q8_L1_RESET(0, 0) PARAKEET_Q8_L1_RESET(1, 0) PARAKEET_Q8_L1_RESET(2, 1) PARAKEET_Q8_L1_RESET(3, 1)          \
    PARAKEET_Q8_L1_RESET(4, 2) PARAKEET_Q8_L1_RESET(5, 2) PARAKEET_Q8_L1_RESET(6, 3) PARAKEET_Q8_L1_RESET(7, 3)          \
    PARAKEET_Q8_L1_RESET(8, 4) PARAKEET_Q8_L1_RESET(9, 4) PARAKEET_Q8_L1_RESET(10, 5) PARAKEET_Q8_L1_RESET(11, 5)        \
    ".irp g,0,1,2,3,4,5,6,7\nvmovdqu64 (\\g*128)(%%rax), %%zmm24\nvmovdqu64 (\\g*128+64)(%%rax), %%zmm25\n"              \
    PARAKEET_Q8_L1_GROUP(0, 0, 1) PARAKEET_Q8_L1_GROUP(1, 2, 3) PARAKEET_Q8_L1_GROUP(2, 4, 5)                           \
    PARAKEET_Q8_L1_GROUP(3, 6, 7) PARAKEET_Q8_L1_GROUP(4, 8, 9) PARAKEET_Q8_L1_GROUP(5, 10, 11) ".endr\n"                \
    "vmovups 1024(%%rax), %%zmm28\nvmovups 1088(%%rax), %%zmm29\n"                                                       \
    PARAKEET_Q8_L1_SCALE(0, 0, 1, 12, 13) PARAKEET_Q8_L1_SCALE(1, 2, 3, 14, 15) PARAKEET_Q8_L1_SCALE(2, 4, 5, 16, 17)    \
    PARAKEET_Q8_L1_SCALE(3, 6, 7, 18, 19) PARAKEET_Q8_L1_SCALE(4, 8, 9, 20, 21) PARAKEET_Q8_L1_SCALE(5, 10, 11, 22, 23)

alignas(64) uint8_t l1_block[1024 + 128];  // one block of a panel: weights, then the rows' scales
alignas(64) uint8_t l1_frames[6 * 256];    // the tile's 6 activation rows (bytes 0–31), scales at 200
alignas(64) uint8_t l1_starts[64];         // the frames' −128·Σx

PARAKEET_VNNI512 void q8_block_step_l1() {
    for (int64_t n = 0; n < kLoop / 8; ++n)
        __asm__ volatile(PARAKEET_Q8_L1_STEP::"a"(l1_block), "c"(l1_frames), "d"(l1_starts) : PARAKEET_ALL_ZMM, "memory");
}

PARAKEET_AVX512 void fma_peak() {
    for (int64_t n = 0; n < kLoop; ++n)
        __asm__ volatile(
                "vfmadd231ps %%zmm30, %%zmm31, %%zmm0\nvfmadd231ps %%zmm30, %%zmm31, %%zmm1\nvfmadd231ps %%zmm30, %%zmm31, %%zmm2\nvfmadd231ps "
                "%%zmm30, %%zmm31, %%zmm3\nvfmadd231ps %%zmm30, %%zmm31, %%zmm4\nvfmadd231ps %%zmm30, %%zmm31, %%zmm5\nvfmadd231ps %%zmm30, %%zmm31, "
                "%%zmm6\nvfmadd231ps %%zmm30, %%zmm31, %%zmm7\nvfmadd231ps %%zmm30, %%zmm31, %%zmm8\nvfmadd231ps %%zmm30, %%zmm31, "
                "%%zmm9\nvfmadd231ps %%zmm30, %%zmm31, %%zmm10\nvfmadd231ps %%zmm30, %%zmm31, %%zmm11" ::
                        : PARAKEET_ALL_ZMM);
}

struct BlockQ8_0 {  // ggml's block_q8_0
    ggml_fp16_t d;
    int8_t qs[32];
};

struct Shape {
    const char * what;
    int64_t rows, cols;
};

/** A weight matrix of `s`'s shape drawn from N(0, 1): the by-width tables' dense input. */
std::vector<float> normal_weights(const Shape & s, std::mt19937 & rng) {
    std::vector<float> dense(size_t(s.rows * s.cols));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float & v : dense) v = normal(rng);
    return dense;
}

/**
 * best_seconds_per_call of one graph run at one thread, its work buffer made once: through
 * ggml_graph_compute_with_ctx every call took a new one from the context, which ran out on small
 * graphs (many calls).
 */
double best_seconds_of_graph(ggml_cgraph * graph) {
    ggml_cplan plan = ggml_graph_plan(graph, 1, nullptr);
    std::vector<uint8_t> work(plan.work_size + 64);
    plan.work_data = work.data();
    return best_seconds_per_call([&] { ggml_graph_compute(graph, &plan); });
}

/** x [cols, frames] F32 in ctx, normal(0, 1) values. */
ggml_tensor * random_activations(ggml_context * ctx, int64_t cols, int64_t frames, std::mt19937 & rng) {
    ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, frames);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t i = 0; i < cols * frames; ++i) static_cast<float *>(x->data)[i] = normal(rng);
    return x;
}

/** A random Q8_0 matrix [rows][cols]: int8 values over the whole range, block scales near 1e-3. */
std::vector<BlockQ8_0> random_q8_blocks(int64_t rows, int64_t cols, std::mt19937 & rng) {
    std::uniform_int_distribution<int> byte(-127, 127);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<BlockQ8_0> blocks(size_t(rows * cols / 32));
    for (BlockQ8_0 & b : blocks) {
        b.d = ggml_fp32_to_fp16(1e-3f * (1.0f + std::fabs(normal(rng))));
        for (int8_t & q : b.qs) q = int8_t(byte(rng));
    }
    return blocks;
}

/** `frames` activation rows of `cols` N(0, 1) values in the Q8_0 kernels' row format (q8_activation_row_bytes apart). */
std::vector<uint8_t> random_q8_activation_rows(int64_t cols, int64_t frames, std::mt19937 & rng) {
    const size_t xs = q8_activation_row_bytes(cols);
    std::vector<uint8_t> xq(xs * size_t(frames));
    std::vector<float> x(static_cast<size_t>(cols));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t f = 0; f < frames; ++f) {
        for (float & v : x) v = normal(rng);
        quantize_q8_activation_row(x.data(), cols, xq.data() + size_t(f) * xs);
    }
    return xq;
}

/** G VPDPBUSD/s of `products` independent W·x nodes of one matrix over `frames` frames, one thread. */
template <typename Matrix>
double gemm_rate(const Matrix & m, int64_t frames, int products, std::mt19937 & rng) {
    const int64_t rows = m.rows(), cols = m.cols();
    ggml_init_params params = {size_t(64) << 20, nullptr, false};
    ggml_context * qctx = ggml_init(params);
    ggml_tensor * xq = m.quantize(qctx, random_activations(qctx, cols, frames, rng), "x");
    ggml_cgraph * qgraph = ggml_new_graph(qctx);
    ggml_build_forward_expand(qgraph, xq);
    ggml_graph_compute_with_ctx(qctx, qgraph, 1);

    const size_t out_bytes = size_t(rows) * size_t(frames) * sizeof(float) * size_t(products);
    ggml_init_params gparams = {out_bytes + ggml_nbytes(xq) + (size_t(16) << 20), nullptr, false};
    ggml_context * ctx = ggml_init(gparams);
    ggml_tensor * leaf = ggml_new_tensor_2d(ctx, xq->type, xq->ne[0], xq->ne[1]);  // the quantized rows as a leaf
    std::memcpy(leaf->data, xq->data, ggml_nbytes(xq));
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (int p = 0; p < products; ++p) ggml_build_forward_expand(graph, m.apply_quantized(ctx, leaf, "w", Epilogue{}));
    const double seconds = best_seconds_of_graph(graph);
    ggml_free(ctx);
    ggml_free(qctx);
    return double(products) * double(frames) * double(rows) * double(cols) / 64.0 / seconds / 1e9;
}

/**
 * The same for the AMX matrices, whose activations are a tile tensor (ActivationFormat::Bf16Tiles)
 * padded to 16 frames: converted once per graph run by its own node (shared by the 12 products, as
 * q, k and v share it in the encoder), then the products.
 */
template <typename Matrix>
double tile_gemm_rate(const Matrix & m, int64_t frames, int products, std::mt19937 & rng) {
    const int64_t rows = m.rows(), cols = m.cols();
    const size_t out_bytes = size_t(rows) * size_t(frames) * sizeof(float) * size_t(products);
    ggml_init_params params = {out_bytes + size_t(cols) * size_t(frames + 16) * 8 + (size_t(16) << 20), nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * xt = m.quantize(ctx, random_activations(ctx, cols, frames, rng), "x");
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (int p = 0; p < products; ++p) ggml_build_forward_expand(graph, m.apply_quantized(ctx, xt, "w", Epilogue{}));
    const double seconds = best_seconds_of_graph(graph);
    ggml_free(ctx);
    return double(products) * double(frames) * double(rows) * double(cols) / 64.0 / seconds / 1e9;
}

/**
 * G multiply–adds/s of the Q8_0 GEMMs as the encoder meets them: `layers` feed-forward pairs
 * (linear1 d → 4d writing linear2's activations in its format, linear2 4d → d), each layer its own
 * weights, so every matrix streams from DRAM once per graph run as in the model (the products above
 * reuse one matrix, which the caches keep). One thread. Matrix: the AMX kernel (its tiles out) or
 * the VNNI kernel (its Q8 blocks out).
 */
template <typename Matrix>
double streamed_ff_rate(int64_t d, int64_t frames, int layers, ActivationFormat between, std::mt19937 & rng) {
    std::vector<WeightBuffer<uint8_t>> storage;  // huge pages, as the engine keeps its weights
    std::vector<std::unique_ptr<Matrix>> matrices;
    for (int m = 0; m < 2 * layers; ++m) {
        const int64_t rows = m % 2 == 0 ? 4 * d : d, cols = m % 2 == 0 ? d : 4 * d;
        const std::vector<BlockQ8_0> blocks = random_q8_blocks(rows, cols, rng);
        storage.emplace_back(Matrix::storage_bytes(rows, cols));
        matrices.push_back(std::make_unique<Matrix>(blocks.data(), rows, cols, storage.back().data()));
    }
    // The graph's tensors placed by ggml's allocator, as the encoder's are: each layer's hidden
    // tensor reuses memory a layer before freed, so linear1 writes into lines the caches still hold
    // (each tensor of its own, 18 MB written per run, it wrote into memory last touched a whole run
    // before). The layers' linear2 outputs are graph outputs and keep their own memory, so those
    // writes still go to lines no cache holds, unlike the encoder's, whose buffers are reused.
    ggml_init_params params = {ggml_tensor_overhead() * size_t(8 * layers + 16) + ggml_graph_overhead(), nullptr, true};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, d, frames);
    ggml_set_input(x);
    ggml_tensor * xt = matrices[0]->quantize(ctx, x, "x");
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (int l = 0; l < layers; ++l) {
        ggml_tensor * hidden = matrices[size_t(2 * l)]->apply_quantized_to(ctx, xt, "linear1", Epilogue{}, between);
        ggml_tensor * y = matrices[size_t(2 * l + 1)]->apply_quantized(ctx, hidden, "linear2", Epilogue{});
        ggml_set_output(y);
        ggml_build_forward_expand(graph, y);
    }
    ggml_gallocr_t allocator = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (!ggml_gallocr_alloc_graph(allocator, graph)) {
        std::fprintf(stderr, "streamed_ff_rate: the graph's buffers could not be allocated\n");
        std::exit(1);
    }
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t i = 0; i < d * frames; ++i) static_cast<float *>(x->data)[i] = normal(rng);
    ggml_cplan plan = ggml_graph_plan(graph, 1, nullptr);
    std::vector<uint8_t> work(plan.work_size + 64);
    plan.work_data = work.data();
    const double seconds = best_seconds_per_call([&] { ggml_graph_compute(graph, &plan); }, 15);
    ggml_gallocr_free(allocator);
    ggml_free(ctx);
    return double(layers) * 8.0 * double(d) * double(d) * double(frames) / seconds / 1e9;
}

/** G multiply–adds/s of ggml's own Q8_0 matmul (stock kernels, F32 activations) at one thread: what the 256-bit kernels replace. */
double ggml_q8_rate(const std::vector<BlockQ8_0> & blocks, int64_t rows, int64_t cols, int64_t frames, int products, std::mt19937 & rng) {
    ggml_init_params params = {
            blocks.size() * sizeof(BlockQ8_0) + size_t(rows + cols) * size_t(frames) * sizeof(float) * size_t(products + 1) + (size_t(16) << 20),
            nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, cols, rows);
    std::memcpy(w->data, blocks.data(), ggml_nbytes(w));
    ggml_tensor * x = random_activations(ctx, cols, frames, rng);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (int p = 0; p < products; ++p) ggml_build_forward_expand(graph, ggml_mul_mat(ctx, w, x));
    const double seconds = best_seconds_of_graph(graph);
    ggml_free(ctx);
    return double(products) * double(frames) * double(rows) * double(cols) / seconds / 1e9;
}

/** G multiply–adds/s of `products` W·x nodes of one F32 matrix (a packed one: `packed`; else ggml's own F32 mul_mat) at one thread. */
double f32_rate(const PackedMatmul * packed, const std::vector<float> & weights, int64_t rows, int64_t cols, int64_t frames, int products,
                std::mt19937 & rng) {
    ggml_init_params params = {
            weights.size() * sizeof(float) + size_t(rows + cols) * size_t(frames) * sizeof(float) * size_t(products + 1) + (size_t(16) << 20),
            nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * x = random_activations(ctx, cols, frames, rng);
    ggml_tensor * w = nullptr;
    if (packed == nullptr) {
        w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, rows);
        std::memcpy(w->data, weights.data(), ggml_nbytes(w));
    }
    ggml_cgraph * graph = ggml_new_graph(ctx);
    for (int p = 0; p < products; ++p)
        ggml_build_forward_expand(graph, packed != nullptr ? packed->apply(ctx, x, "w", Epilogue{}) : ggml_mul_mat(ctx, w, x));
    const double seconds = best_seconds_of_graph(graph);
    ggml_free(ctx);
    return double(products) * double(frames) * double(rows) * double(cols) / seconds / 1e9;
}

/** One table cell per int8 kernel width: `Matrix` packed from `source` for each, its G multiply–adds/s ("-" where it does not run). */
template <typename Matrix, typename Source>
void print_int8_widths(const Source * source, int64_t rows, int64_t cols, int64_t frames, int products, std::mt19937 & rng) {
    for (Int8Kernel kernel : {Int8Kernel::Avx2, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Vnni512}) {
        if (!int8_kernel_runs_here(kernel)) {
            std::printf(" %19s", "-");
            continue;
        }
        std::vector<uint8_t> storage(64);  // not empty: GCC 12 -Wnonnull misreads assign() on an empty vector
        const Matrix m(source, rows, cols, aligned64(storage, Matrix::storage_bytes(rows, cols)), kernel);
        std::printf(" %19.1f", 64.0 * gemm_rate(m, frames, products, rng));
    }
}

/** The tables by width: the encoders' shapes at 10 s and 60 s, 12 products per graph run; `quick`: one small shape (a smoke run). */
struct WidthRun {
    std::vector<Shape> shapes;
    std::vector<int64_t> frames;
    int products;
};
WidthRun width_run(bool quick) {
    if (quick) return {{{"smoke 64 x 96", 64, 96}}, {3, 17}, 2};
    return {{{"110M q/k/v/out", 512, 512},
             {"110M FF linear1", 2048, 512},
             {"110M FF linear2", 512, 2048},
             {"0.6B q/k/v/out", 1024, 1024},
             {"0.6B FF linear1", 4096, 1024},
             {"0.6B FF linear2", 1024, 4096}},
            {125, 750},
            12};
}

/** One cell per F32 panel kernel (f32_avx2, f32_avx512) of `dense`, `width` wide: its G multiply–adds/s ("-" where it does not run). */
void print_f32_widths(const std::vector<float> & dense, const Shape & s, int64_t frames, int products, int width, std::mt19937 & rng) {
    for (F32Kernel kernel : {F32Kernel::Avx2, F32Kernel::Avx512}) {
        if (kernel == F32Kernel::Avx2 ? !cpu_has_avx2() : !cpu_has_avx512f()) {
            std::printf(" %*s", width, "-");
            continue;
        }
        std::vector<uint8_t> storage(64);  // not empty: GCC 12 -Wnonnull misreads assign() on an empty vector
        const PackedF32Matrix m(dense.data(), s.rows, s.cols, aligned64(storage, PackedF32Matrix::storage_bytes(s.rows, s.cols)), kernel);
        std::printf(" %*.1f", width, f32_rate(&m, dense, s.rows, s.cols, frames, products, rng));
    }
}

/**
 * `--ymm` (and after the default tables): the Q8_0 and per-channel int8 kernels of every width this
 * CPU runs (…_avx2, …_avx_vnni, the 512-bit …_vnni) beside ggml's stock Q8_0 matmul, and the F32
 * panels (f32_avx2, f32_avx512) beside ggml's F32, in G multiply–adds/s at one thread, on the
 * encoders' shapes (`--ymm --quick`: one small shape, a smoke run).
 */
void ymm_rates(bool quick) {
    std::mt19937 rng(7);
    const WidthRun run = width_run(quick);
    const std::vector<int64_t> & frames_list = run.frames;
    const int products = run.products;
    const char * labels[] = {"q8_0_avx2", "q8_0_avx_vnni", "q8_0_avx_vnni(evex)", "q8_0_vnni"};
    std::printf("\nQ8_0 kernels by width, one thread, G multiply-adds/s (%d products per graph run; ggml: its stock Q8_0 mul_mat):\n", products);
    std::printf("%-17s %6s |", "shape", "frames");
    for (const char * label : labels) std::printf(" %19s", label);
    std::printf(" %9s\n", "ggml");
    for (const Shape & s : run.shapes) {
        const std::vector<BlockQ8_0> blocks = random_q8_blocks(s.rows, s.cols, rng);
        for (int64_t frames : frames_list) {
            std::printf("%-17s %6lld |", s.what, static_cast<long long>(frames));
            print_int8_widths<PackedQ8Matrix>(blocks.data(), s.rows, s.cols, frames, products, rng);
            std::printf(" %9.1f\n", ggml_q8_rate(blocks, s.rows, s.cols, frames, products, rng));
        }
    }
    // The per-channel int8 layout (weightType int8) by width, and the F32 panels (AVX2, AVX-512) beside ggml's F32.
    std::printf("\nper-channel int8 and F32 by width, one thread, G multiply-adds/s (ggml: its stock F32 mul_mat):\n");
    std::printf("%-17s %6s |", "shape", "frames");
    const char * channel_labels[] = {"int8_channel_avx2", "int8_ch_avx_vnni", "int8_ch_vnni(evex)", "int8_channel_vnni"};
    for (const char * label : channel_labels) std::printf(" %19s", label);
    std::printf(" %10s %10s %9s\n", "f32_avx2", "f32_avx512", "ggml");
    for (const Shape & s : run.shapes) {
        const std::vector<float> dense = normal_weights(s, rng);
        for (int64_t frames : frames_list) {
            std::printf("%-17s %6lld |", s.what, static_cast<long long>(frames));
            print_int8_widths<PackedI8ChannelMatrix>(dense.data(), s.rows, s.cols, frames, products, rng);
            print_f32_widths(dense, s, frames, products, 10, rng);
            std::printf(" %9.1f\n", f32_rate(nullptr, dense, s.rows, s.cols, frames, products, rng));
        }
    }
    std::printf("('-': not on this CPU or above PARAKEET_CPU_CLASS=%s)\n", cpu_class_name(cpu_class_cap()));
}

/**
 * `--i16`: the 14-bit layout by width beside the exact F32 panels, one thread, G multiply-adds/s,
 * each product with its own activation quantization (as a lone matmul in the encoder has), on the
 * encoders' shapes (`--i16 --quick`: one small shape, a smoke run). registry.cpp's 'auto' choice
 * per class reads this table.
 */
void i16_rates(bool quick) {
    std::mt19937 rng(7);
    const WidthRun run = width_run(quick);
    const std::vector<int64_t> & frames_list = run.frames;
    const int products = run.products;
    std::printf("\n14-bit and F32 by width, one thread, G multiply-adds/s (%s; %d products per graph run):\n",
                g_cpu_time ? "process CPU time" : "wall clock", products);
    std::printf("%-17s %6s |", "shape", "frames");
    for (const char * label : {"i16_avx2", "i16_avx_vnni", "i16_avx_vnni(evex)", "i16_vnni", "f32_avx2", "f32_avx512"}) std::printf(" %18s", label);
    std::printf("\n");
    for (const Shape & s : run.shapes) {
        const std::vector<float> dense = normal_weights(s, rng);
        for (int64_t frames : frames_list) {
            std::printf("%-17s %6lld |", s.what, static_cast<long long>(frames));
            for (Int8Kernel kernel : {Int8Kernel::Avx2, Int8Kernel::AvxVnniVex, Int8Kernel::AvxVnniEvex, Int8Kernel::Vnni512}) {
                if (!int8_kernel_runs_here(kernel)) {
                    std::printf(" %18s", "-");
                    continue;
                }
                std::vector<uint8_t> storage(64);  // not empty: GCC 12 -Wnonnull misreads assign() on an empty vector
                const PackedI16Matrix m(dense.data(), s.rows, s.cols, aligned64(storage, PackedI16Matrix::storage_bytes(s.rows, s.cols)), kernel);
                std::printf(" %18.1f", f32_rate(&m, dense, s.rows, s.cols, frames, products, rng));
            }
            print_f32_widths(dense, s, frames, products, 18, rng);
            std::printf("\n");
        }
    }
    std::printf("('-': not on this CPU or above PARAKEET_CPU_CLASS=%s)\n", cpu_class_name(cpu_class_cap()));
}

std::string cpu_model() {
    std::ifstream info("/proc/cpuinfo");
    std::string line, name = "?", family, model;
    while (std::getline(info, line)) {
        const auto value = [&] { return line.substr(line.find(':') + 2); };
        if (line.rfind("model name", 0) == 0 && name == "?")
            name = value();
        else if (line.rfind("cpu family", 0) == 0 && family.empty())
            family = value();
        else if (line.rfind("model", 0) == 0 && line.rfind("model name", 0) != 0 && model.empty())
            model = value();
    }
    return name + " (family " + family + ", model " + model + ")";
}


/*
 * `--ports`: what AVX2 (no VNNI) allows an 8-bit dot product, measured as instruction mixes in
 * registers, 8 steps per loop on 7 accumulators, each step 32 multiply-adds (8 int32 lanes × 4 byte
 * pairs). Each mix is a way to sum int8 products exactly into int32 with 256-bit AVX2:
 *   exact s8·s8    VPSIGNB, VPMADDUBSW, VPMADDWD by ones, VPADDD: q8_0_avx2 and int8_channel_avx2
 *                  (both operands signed: VPMADDUBSW needs one unsigned, so one takes the other's sign);
 *   u8·s8          VPMADDUBSW, VPMADDWD by ones, VPADDD: one operand already unsigned, as ONNX
 *                  Runtime's AVX2 int8 GEMM (MLAS U8S8) runs it: pairs of u8·s8 products can exceed
 *                  int16 and saturate in VPMADDUBSW unless one operand is kept to 7 bits;
 *   i16·i16        VPMADDWD, VPADDD per 16 multiply-adds, twice: i16_avx2 (weights as 16-bit);
 *   f32 FMA        VFMADD231PS per 8, four times: the F32 kernels.
 * Printed in multiply-adds per cycle, cycles from VFMADD231PS's throughput (two per cycle on
 * every AVX2 core this project has met), and in G multiply-adds/s.
 */
#define PARAKEET_ALL_YMM "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define PARAKEET_STEP_SIGNED(acc, tmp, x) \
    "vpsignb %%ymm13, %%" x ", %%" tmp "\n vpmaddubsw %%" tmp ", %%ymm15, %%" tmp "\n vpmaddwd %%" tmp ", %%ymm14, %%" tmp "\n vpaddd %%" tmp ", %%" acc ", %%" acc "\n"
#define PARAKEET_STEP_U8S8(acc, tmp, x) "vpmaddubsw %%" x ", %%ymm15, %%" tmp "\n vpmaddwd %%" tmp ", %%ymm14, %%" tmp "\n vpaddd %%" tmp ", %%" acc ", %%" acc "\n"
#define PARAKEET_STEP_I16(acc, tmp, x) \
    "vpmaddwd %%" x ", %%ymm15, %%" tmp "\n vpaddd %%" tmp ", %%" acc ", %%" acc "\n vpmaddwd %%" x ", %%ymm13, %%" tmp "\n vpaddd %%" tmp ", %%" acc ", %%" acc "\n"
#define PARAKEET_STEP_FMA(acc, tmp, x) \
    "vfmadd231ps %%" x ", %%ymm15, %%" acc "\n vfmadd231ps %%" x ", %%ymm13, %%" tmp "\n vfmadd231ps %%" x ", %%ymm14, %%" acc "\n vfmadd231ps %%ymm13, %%ymm14, %%" tmp "\n"
#define PARAKEET_EIGHT_STEPS(STEP) \
    STEP("ymm0", "ymm8", "ymm12") STEP("ymm1", "ymm9", "ymm11") STEP("ymm2", "ymm10", "ymm12") STEP("ymm3", "ymm7", "ymm11") \
    STEP("ymm4", "ymm8", "ymm12") STEP("ymm5", "ymm9", "ymm11") STEP("ymm6", "ymm10", "ymm12") STEP("ymm3", "ymm7", "ymm11")

void avx2_mix_signed() {
    for (int64_t n = 0; n < kLoop; ++n) __asm__ volatile(PARAKEET_EIGHT_STEPS(PARAKEET_STEP_SIGNED)::: PARAKEET_ALL_YMM);
}
void avx2_mix_u8s8() {
    for (int64_t n = 0; n < kLoop; ++n) __asm__ volatile(PARAKEET_EIGHT_STEPS(PARAKEET_STEP_U8S8)::: PARAKEET_ALL_YMM);
}
void avx2_mix_i16() {
    for (int64_t n = 0; n < kLoop; ++n) __asm__ volatile(PARAKEET_EIGHT_STEPS(PARAKEET_STEP_I16)::: PARAKEET_ALL_YMM);
}
void avx2_mix_fma() {
    for (int64_t n = 0; n < kLoop; ++n) __asm__ volatile(PARAKEET_EIGHT_STEPS(PARAKEET_STEP_FMA)::: PARAKEET_ALL_YMM);
}
void avx2_fma_alone() {
    for (int64_t n = 0; n < kLoop; ++n)
        __asm__ volatile(
                "vfmadd231ps %%ymm15, %%ymm14, %%ymm0\n vfmadd231ps %%ymm15, %%ymm14, %%ymm1\n vfmadd231ps %%ymm15, %%ymm14, %%ymm2\n"
                "vfmadd231ps %%ymm15, %%ymm14, %%ymm3\n vfmadd231ps %%ymm15, %%ymm14, %%ymm4\n vfmadd231ps %%ymm15, %%ymm14, %%ymm5\n"
                "vfmadd231ps %%ymm15, %%ymm14, %%ymm6\n vfmadd231ps %%ymm15, %%ymm14, %%ymm7\n vfmadd231ps %%ymm15, %%ymm14, %%ymm8\n"
                "vfmadd231ps %%ymm15, %%ymm14, %%ymm9\n vfmadd231ps %%ymm15, %%ymm14, %%ymm10\n vfmadd231ps %%ymm15, %%ymm14, %%ymm11\n" ::
                        : PARAKEET_ALL_YMM);
}

void port_rates() {
    if (!cpu_has_avx2()) {
        std::printf("--ports: no AVX2 on this CPU\n");
        return;
    }
    std::printf("CPU: %s, one thread; AVX2 8-bit dot-product instruction mixes in registers (%s)\n", cpu_model().c_str(),
                g_cpu_time ? "process CPU time" : "wall clock");
    const double cycle = best_seconds_per_call(avx2_fma_alone) / (12.0 * kLoop / 2.0);  // two VFMADD231PS per cycle
    std::printf("clock from VFMADD231PS's throughput: %.2f GHz\n", 1e-9 / cycle);
    struct Mix {
        const char * what;
        void (*run)();
    };
    const Mix mixes[] = {
            {"exact s8·s8: VPSIGNB + VPMADDUBSW + VPMADDWD + VPADDD (ours)", avx2_mix_signed},
            {"u8·s8: VPMADDUBSW + VPMADDWD + VPADDD (ORT's MLAS U8S8)", avx2_mix_u8s8},
            {"i16·i16: 2 × (VPMADDWD + VPADDD) (i16_avx2)", avx2_mix_i16},
            {"f32: 4 × VFMADD231PS", avx2_mix_fma},
    };
    for (const Mix & mix : mixes) {
        const double seconds = best_seconds_per_call(mix.run) / (8.0 * kLoop);  // per 32-multiply-add step
        std::printf("  %-62s %5.2f cycles per 32 multiply-adds, %5.1f per cycle, %6.1f G/s\n", mix.what, seconds / cycle, 32.0 * cycle / seconds,
                    32.0 / seconds / 1e9);
    }
}

/*
 * `--q8-dot-forms`: q8_0_avx2's dot takes one operand's sign on the other's magnitude; where no weight
 * is −128 the magnitude is x's, made once per broadcast, instead of w's, made per weight vector and
 * frame pair (q8_0_ymm_tile.inc). Both forms run on the same weights here — the second matrix differs
 * by one weight set to −128, which makes its kernel take the first form — alternated call by call so
 * that the machine's drift falls on both; the median and best of each, in G multiply-adds/s.
 */
void q8_dot_form_rates() {
    if (!int8_kernel_runs_here(Int8Kernel::Avx2)) {
        std::printf("--q8-dot-forms: q8_0_avx2 does not run on this CPU\n");
        return;
    }
    std::printf("CPU: %s, one thread, %s; q8_0_avx2 on the same weights in its two dot forms, alternated, 125 frames\n", cpu_model().c_str(),
                g_cpu_time ? "process CPU time" : "wall clock");
    std::printf("%-17s | %-22s | %-22s | median ratio\n", "shape", "w's sign on |x|: med best", "x's sign on |w|: med best");
    const Shape shapes[] = {{"110M q/k/v/out", 512, 512},   {"110M FF linear1", 2048, 512},  {"110M FF linear2", 512, 2048},
                            {"0.6B q/k/v/out", 1024, 1024}, {"0.6B FF linear1", 4096, 1024}, {"0.6B FF linear2", 1024, 4096}};
    constexpr int64_t kFrames = 125;
    constexpr int kRounds = 41;
    std::mt19937 rng(7);
    for (const Shape & sh : shapes) {
        const std::vector<BlockQ8_0> blocks = random_q8_blocks(sh.rows, sh.cols, rng);
        std::vector<BlockQ8_0> with_minus_128 = blocks;
        with_minus_128.back().qs[31] = -128;
        std::vector<uint8_t> storage_x, storage_w;
        const size_t bytes = PackedQ8Matrix::storage_bytes(sh.rows, sh.cols);
        const PackedQ8Matrix sign_on_x(blocks.data(), sh.rows, sh.cols, aligned64(storage_x, bytes), Int8Kernel::Avx2);
        const PackedQ8Matrix sign_on_w(with_minus_128.data(), sh.rows, sh.cols, aligned64(storage_w, bytes), Int8Kernel::Avx2);
        const size_t xs = q8_activation_row_bytes(sh.cols);
        const std::vector<uint8_t> xq = random_q8_activation_rows(sh.cols, kFrames, rng);
        std::vector<float> y(static_cast<size_t>(sh.rows * kFrames));
        std::vector<double> seconds[2];
        for (int round = 0; round < kRounds; ++round) {
            for (int form = 0; form < 2; ++form) {
                const PackedQ8Matrix & m = form == 0 ? sign_on_x : sign_on_w;
                const double t0 = now_seconds();
                m.multiply(xq.data(), xs, kFrames, y.data(), size_t(sh.rows), 0, sh.rows / 32);
                seconds[form].push_back(now_seconds() - t0);
            }
        }
        const double macs = double(sh.rows) * double(sh.cols) * double(kFrames);
        double median[2], best[2];
        for (int form = 0; form < 2; ++form) {
            std::sort(seconds[form].begin(), seconds[form].end());
            median[form] = seconds[form][seconds[form].size() / 2];
            best[form] = seconds[form].front();
        }
        std::printf("%-17s | %9.1f %9.1f    | %9.1f %9.1f    | %.3f\n", sh.what, macs / median[0] / 1e9, macs / best[0] / 1e9, macs / median[1] / 1e9,
                    macs / best[1] / 1e9, median[1] / median[0]);
    }
}

}  // namespace

int main(int argc, char ** argv) {
    const bool stream_only = argc > 1 && std::strcmp(argv[1], "--streamed") == 0;
    if (stream_only) {
        std::mt19937 rng(7);
        if (!cpu_has_avx512_vnni()) std::printf("streamed VNNI rates: this CPU has no AVX512-VNNI\n");
        for (int64_t frames : {int64_t(125), int64_t(750)})
            if (cpu_has_avx512_vnni())
                std::printf("VNNI Q8_0, 0.6B feed-forward pairs from DRAM, %lld frames: %.0f G multiply-adds/s\n", static_cast<long long>(frames),
                            streamed_ff_rate<PackedQ8Matrix>(1024, frames, 12, ActivationFormat::Q8Blocks, rng));
        if (!amx_bf16_usable()) {
            std::printf("streamed AMX rates: AMX-BF16 not usable here (%s)\n", amx_bf16_status().reason.c_str());
            return 0;
        }
        for (int64_t frames : {int64_t(125), int64_t(750)})
            std::printf("AMX Q8_0, 0.6B feed-forward pairs from DRAM, %lld frames: %.0f G multiply-adds/s\n", static_cast<long long>(frames),
                        streamed_ff_rate<PackedQ8TileMatrix>(1024, frames, 12, ActivationFormat::Bf16Tiles, rng));
        return 0;
    }
    // `--tile`: the VNNI Q8_0 kernel outside a graph on operands the caches hold (one or eight panels,
    // 512, 1024 or 4096 inputs): its loop's own rate, against the L1 block step above and the streamed rate.
    if (argc > 1 && std::strcmp(argv[1], "--tile") == 0) {
        std::mt19937 rng(7);
        const double peak = 12.0 * kLoop / best_seconds_per_call(vpdpbusd_peak) / 1e9;
        for (int64_t panels : {int64_t(1), int64_t(8)})
            for (int64_t cols : {int64_t(512), int64_t(1024), int64_t(4096)}) {
                const int64_t rows = 32 * panels, frames = 126;
                const std::vector<BlockQ8_0> blocks = random_q8_blocks(rows, cols, rng);
                std::vector<uint8_t> storage;
                const PackedQ8Matrix q8(blocks.data(), rows, cols, aligned64(storage, PackedQ8Matrix::storage_bytes(rows, cols)));
                const size_t xs = q8_activation_row_bytes(cols);
                const std::vector<uint8_t> xq = random_q8_activation_rows(cols, frames, rng);
                std::vector<float> y(static_cast<size_t>(rows * frames));
                const double sec = best_seconds_per_call([&] { q8.multiply(xq.data(), xs, frames, y.data(), size_t(rows), 0, panels); });
                const double rate = double(frames * rows * cols) / 64.0 / sec / 1e9;
                std::printf(
                        "VNNI Q8_0 tile loop, %lld rows × %lld inputs, %lld frames, cache-resident: %.2f G VPDPBUSD/s (%.0f %% of VPDPBUSD alone)\n",
                        static_cast<long long>(rows), static_cast<long long>(cols), static_cast<long long>(frames), rate, 100 * rate / peak);
            }
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--cpu-time") == 0) {
        g_cpu_time = true;
        --argc, ++argv;
    }
    if (argc > 1 && std::strcmp(argv[1], "--ports") == 0) {
        port_rates();
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--q8-dot-forms") == 0) {
        q8_dot_form_rates();
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--i16") == 0) {
        i16_rates(argc > 2 && std::strcmp(argv[2], "--quick") == 0);
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--ymm") == 0) {
        ymm_rates(argc > 2 && std::strcmp(argv[2], "--quick") == 0);
        return 0;
    }
    if (!cpu_has_avx512_vnni()) {
        std::printf("kernel rates: this CPU has no AVX512-VNNI; the 512-bit int8 kernels do not run here\n");
        if (cpu_has_avx2()) ymm_rates(false);
        return 0;
    }
    std::printf("CPU: %s, one thread\n", cpu_model().c_str());
    const double peak = 12.0 * kLoop / best_seconds_per_call(vpdpbusd_peak) / 1e9;
    const double step = 96.0 * (kLoop / 8) / best_seconds_per_call(q8_block_step) / 1e9;
    const double one_scale = 96.0 * (kLoop / 8) / best_seconds_per_call(q8_block_step_one_scale) / 1e9;
    const double from_l1 = 96.0 * (kLoop / 8) / best_seconds_per_call(q8_block_step_l1) / 1e9;
    const double fma = 12.0 * kLoop / best_seconds_per_call(fma_peak) / 1e9;
    std::printf("VPDPBUSD alone:           %5.2f G/s\n", peak);
    std::printf("Q8_0 block step (regs):   %5.2f G VPDPBUSD/s (%.0f %% of VPDPBUSD alone: the cap of exact per-32 block scales)\n", step,
                100.0 * step / peak);
    std::printf("  without the scale multiply: %5.2f G VPDPBUSD/s (%.0f %%: one scale constant along K, not Q8_0's numerics)\n", one_scale,
                100.0 * one_scale / peak);
    std::printf("  with its loads from L1:     %5.2f G VPDPBUSD/s (%.0f %%: what gemm_tile's broadcasts and loads cost)\n", from_l1,
                100.0 * from_l1 / peak);
    std::printf("VFMADD231PS alone:        %5.2f G/s (%.0f GFLOP/s F32)\n", fma, fma * 32.0);

    std::mt19937 rng(7);
    // The encoder's matmuls: 110M (d 512) and 0.6B (d 1024) q/k/v/out and feed-forward.
    const Shape shapes[] = {{"110M q/k/v/out", 512, 512},   {"110M FF linear1", 2048, 512},  {"110M FF linear2", 512, 2048},
                            {"0.6B q/k/v/out", 1024, 1024}, {"0.6B FF linear1", 4096, 1024}, {"0.6B FF linear2", 1024, 4096}};
    constexpr int64_t kFrames[] = {125, 750};  // 10 s and 60 s of audio
    constexpr int kProducts = 12;
    std::printf("\nGEMMs as ggml nodes, %d products of one activation tensor per graph run, G VPDPBUSD/s (%% of VPDPBUSD alone):\n", kProducts);
    const bool amx = amx_bf16_usable();
    std::printf("%-17s %6s %6s | %-18s %-18s %s\n", "shape", "frames", "", "Q8_0 (file-exact)", "per-channel int8",
                amx ? "AMX-BF16: Q8_0 int8 tiles, the same as BF16 tiles" : ("(no AMX-BF16: " + amx_bf16_status().reason + ")").c_str());
    for (const Shape & s : shapes) {
        const std::vector<BlockQ8_0> blocks = random_q8_blocks(s.rows, s.cols, rng);
        std::vector<uint8_t> q8_storage, ch_storage;
        const PackedQ8Matrix q8(blocks.data(), s.rows, s.cols, aligned64(q8_storage, PackedQ8Matrix::storage_bytes(s.rows, s.cols)));
        std::vector<float> dense(size_t(s.rows * s.cols));
        ggml_get_type_traits(GGML_TYPE_Q8_0)->to_float(blocks.data(), dense.data(), int64_t(dense.size()));
        const PackedI8ChannelMatrix ch(dense.data(), s.rows, s.cols, aligned64(ch_storage, PackedI8ChannelMatrix::storage_bytes(s.rows, s.cols)));
        std::vector<uint8_t> amx_storage, wide_storage;
        std::unique_ptr<PackedQ8TileMatrix> q8_amx;
        std::unique_ptr<PackedBf16TileMatrix> q8_wide;
        if (amx) {
            q8_amx = std::make_unique<PackedQ8TileMatrix>(blocks.data(), s.rows, s.cols,
                                                          aligned64(amx_storage, PackedQ8TileMatrix::storage_bytes(s.rows, s.cols)));
            q8_wide = std::make_unique<PackedBf16TileMatrix>(dense.data(), s.rows, s.cols,
                                                             aligned64(wide_storage, PackedBf16TileMatrix::storage_bytes(s.rows, s.cols)));
        }
        for (int64_t frames : kFrames) {
            const double q8_rate = gemm_rate(q8, frames, kProducts, rng);
            const double ch_rate = gemm_rate(ch, frames, kProducts, rng);
            std::printf("%-17s %6lld %6s | %5.2f (%3.0f %%)       %5.2f (%3.0f %%)", s.what, static_cast<long long>(frames), "", q8_rate,
                        100.0 * q8_rate / peak, ch_rate, 100.0 * ch_rate / peak);
            if (amx) {
                const double amx_rate = tile_gemm_rate(*q8_amx, frames, kProducts, rng);
                const double wide_rate = tile_gemm_rate(*q8_wide, frames, kProducts, rng);
                std::printf("      %5.2f (%3.0f %%)     %5.2f (%3.0f %%)", amx_rate, 100.0 * amx_rate / peak, wide_rate, 100.0 * wide_rate / peak);
            }
            std::printf("\n");
        }
    }
    if (cpu_has_avx2()) ymm_rates(false);
    return 0;
}
