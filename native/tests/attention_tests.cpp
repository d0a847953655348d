// The fused relative-position attention ops (attention_op.h), F32, 14-bit and AMX-BF16, against NeMo's
// RelPositionMultiHeadAttention written out in float64: padded frames, an odd number of valid keys,
// heads of 48 (a 16-channel slice), 64 and 128 channels, one and two threads; and the 256-bit 14-bit
// ops (attention_i16_ymm.h) against the 512-bit one, bit for bit.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "attention_blocks.h"
#include "attention_f32_avx2.h"
#include "attention_i16_ymm.h"
#include "attention_op.h"
#include "check.h"
#include "cpu_ops.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "vex_vnni_trap.h"

using namespace parakeet;

namespace {

struct Case {
    int64_t dk, heads, frames, valid;
    int threads;
};

struct Inputs {
    std::vector<float> q, k, v, p, u, bv;
};

Inputs random_inputs(const Case & c, std::mt19937 & rng) {
    const int64_t D = c.dk * c.heads, T = c.frames;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Inputs in;
    auto fill = [&](std::vector<float> & x, size_t n, float scale) {
        x.resize(n);
        for (float & e : x) e = normal(rng) * scale;
    };
    fill(in.q, size_t(D * T), 1.0f);
    fill(in.k, size_t(D * T), 1.0f);
    fill(in.v, size_t(D * T), 1.0f);
    fill(in.p, size_t(D * (2 * T - 1)), 0.5f);
    fill(in.u, size_t(D), 0.3f);
    fill(in.bv, size_t(D), 0.3f);
    in.v[size_t(D * (T / 2) + 3)] = 25.0f;  // outliers: a value channel and a key row get a large entry
    in.k[size_t(D * (T / 3) + 1)] = -12.0f;
    return in;
}

// context [T][D] in float64 (rows past `valid` zero).
std::vector<double> reference(const Case & c, const Inputs & in) {
    const int64_t D = c.dk * c.heads, T = c.frames, dk = c.dk;
    std::vector<double> out(size_t(D * T), 0.0);
    std::vector<double> s(size_t(c.valid));
    for (int64_t h = 0; h < c.heads; ++h) {
        for (int64_t i = 0; i < c.valid; ++i) {
            double m = -INFINITY;
            for (int64_t j = 0; j < c.valid; ++j) {
                double ac = 0.0, bd = 0.0;
                const int64_t r = T - 1 - i + j;  // row of relative position i − j
                for (int64_t d = 0; d < dk; ++d) {
                    const double qd = in.q[size_t(i * D + h * dk + d)];
                    ac += (qd + in.u[size_t(h * dk + d)]) * in.k[size_t(j * D + h * dk + d)];
                    bd += (qd + in.bv[size_t(h * dk + d)]) * in.p[size_t(r * D + h * dk + d)];
                }
                s[size_t(j)] = (ac + bd) / std::sqrt(double(dk));
                m = std::fmax(m, s[size_t(j)]);
            }
            double sum = 0.0;
            for (double & e : s) sum += (e = std::exp(e - m));
            for (int64_t d = 0; d < dk; ++d) {
                double acc = 0.0;
                for (int64_t j = 0; j < c.valid; ++j) acc += s[size_t(j)] * in.v[size_t(j * D + h * dk + d)];
                out[size_t(i * D + h * dk + d)] = acc / sum;
            }
        }
    }
    return out;
}

/** The op's output: F32 rows [T][D], or (tiles_out) its BF16 activation tiles as raw 16-bit words. */
template <typename Value = float>
// `body`: run that op body on the fused node's sources instead of the one the CPU check picks (a
// kernel of a lower class, e.g. attention_f32_avx2_op on an AVX-512 CPU).
std::vector<Value> run_op(const Case & c, const Inputs & in, AttentionProducts products, bool tiles_out = false, ggml_custom_op_t body = nullptr) {
    const int64_t D = c.dk * c.heads, T = c.frames;
    ggml_init_params params = {size_t(64) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    auto tensor = [&](const std::vector<float> & x, int64_t ne0, int64_t ne1) {
        ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
        std::memcpy(t->data, x.data(), x.size() * sizeof(float));
        return t;
    };
    ggml_tensor * mask = nullptr;
    if (c.valid < T) {
        std::vector<float> m(size_t(T), 0.0f);
        for (int64_t t = 0; t < c.valid; ++t) m[size_t(t)] = 1.0f;
        mask = tensor(m, 1, T);
    }
    ggml_tensor * y = fused_rel_pos_attention(ctx, tensor(in.q, D, T), tensor(in.k, D, T), tensor(in.v, D, T), tensor(in.p, D, 2 * T - 1),
                                              tensor(in.u, c.dk, c.heads), tensor(in.bv, c.dk, c.heads), mask, products, tiles_out);
    if (body != nullptr) y = ggml_custom_4d(ctx, GGML_TYPE_F32, D, T, 1, 1, y->src, mask != nullptr ? 7 : 6, body, GGML_N_TASKS_MAX, nullptr);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    // Tiles start as garbage: every value the GEMM reads must be written by the op.
    if (tiles_out) std::memset(y->data, 0x7F, size_t(D) * 2 * size_t((T + 15) / 16 * 16));
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, c.threads)), int(GGML_STATUS_SUCCESS));
    std::vector<Value> out;
    if (tiles_out) {  // the whole padded tile tensor
        const size_t bytes = size_t(D) * 2 * size_t((T + 15) / 16 * 16);
        out.resize(bytes / sizeof(Value));
        std::memcpy(out.data(), y->data, bytes);
    } else {
        out.resize(size_t(D * T));
        for (int64_t t = 0; t < T; ++t)
            std::memcpy(out.data() + t * D, static_cast<const char *>(y->data) + size_t(t) * y->nb[1], size_t(D) * sizeof(float));
    }
    ggml_free(ctx);
    return out;
}

double relative_l2(const std::vector<float> & got, const std::vector<double> & want) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / den);
}

const Case kCases[] = {{64, 2, 1, 1, 1}, {64, 3, 45, 40, 2}, {128, 2, 100, 100, 1}, {48, 2, 70, 33, 2}, {128, 1, 30, 29, 1}};

void check_op(AttentionProducts products, double bound, ggml_custom_op_t body = nullptr) {
    std::mt19937 rng(products == AttentionProducts::F32 ? 5 : 21);
    for (const Case & c : kCases) {
        if (products == AttentionProducts::AmxBf16 && !amx_attention_available(c.dk)) continue;  // heads of 48: dk a multiple of 32 only
        const Inputs in = random_inputs(c, rng);
        const std::vector<double> want = reference(c, in);
        const std::vector<float> got = run_op(c, in, products, false, body);
        const double err = relative_l2(got, want);
        int nonzero_padding = 0;
        for (int64_t i = c.valid * c.dk * c.heads; i < int64_t(got.size()); ++i) nonzero_padding += got[size_t(i)] != 0.0f;
        if (std::getenv("SHOW") != nullptr || !(err <= bound))
            std::cerr << "  dk " << c.dk << " heads " << c.heads << " frames " << c.frames << " valid " << c.valid << ": " << err << "\n";
        CHECK(err <= bound);
        CHECK_EQ(nonzero_padding, 0);
    }
}

}  // namespace

TEST(f32_attention_matches_float64) {
    if (parakeet_tests::skip_unless(fused_attention_available(), "no AVX2 or AVX-512 on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    check_op(AttentionProducts::F32, 1e-5);
}

TEST(f32_attention_avx2_matches_float64) {
    if (parakeet_tests::skip_unless(cpu_has_avx2(), "no AVX2 + FMA + F16C on this CPU (or PARAKEET_CPU_CLASS caps it)")) return;
    check_op(AttentionProducts::F32, 1e-5, attention_f32_avx2_op);
}

// 12–14 bits per value: an order of magnitude inside one 8-bit (Q8_0) product's error.
TEST(i16_attention_stays_near_float64) {
    if (parakeet_tests::skip_unless(int16_attention_available(64), "no 14-bit attention row runs on this CPU (or PARAKEET_CPU_CLASS caps it)"))
        return;
    check_op(AttentionProducts::Int16, 1e-3);
}

namespace {

/** A 256-bit 14-bit op body, whether this CPU (under PARAKEET_CPU_CLASS) can execute it, and whether
 * it runs under the SIGILL trap (the VEX build on a CPU with only EVEX VNNI: vex_vnni_trap.h). */
struct YmmBody {
    const char * name;
    ggml_custom_op_t body;
    bool runs;
    bool trapped = false;
};

std::vector<YmmBody> ymm_bodies() {
    const CpuFeatures & cpu = cpu_features();
    const bool vex_by_trap = !cpu.avx_vnni_vex() && cpu.avx_vnni_evex() && parakeet_tests::VexVnniTrap::available();
    return {{"attention_i16_avx2", attention_i16_avx2_op, cpu.has(CpuClass::Avx2)},
            {"attention_i16_avx_vnni", attention_i16_avx_vnni_vex_op, cpu.avx_vnni_vex() || vex_by_trap, vex_by_trap},
            {"attention_i16_avx_vnni_evex", attention_i16_avx_vnni_evex_op, cpu.avx_vnni_evex()}};
}

/** The trap, for as long as the returned pointer lives, when the body needs it. */
std::unique_ptr<parakeet_tests::VexVnniTrap> trap_for(const YmmBody & y) {
    return y.trapped ? std::make_unique<parakeet_tests::VexVnniTrap>() : nullptr;
}

}  // namespace

// The 256-bit ops' integer sums are exact and every float step is the 512-bit op's lane for lane
// (attention_i16_ymm.inc), so their outputs equal it bit for bit: the float64 cases, 700 keys, and
// a head of 512 channels.
TEST(i16_attention_ymm_equals_the_512_bit_op) {
    if (parakeet_tests::skip_unless(cpu_has_avx512_vnni(), "no AVX512-VNNI here to compare the 256-bit ops with (or PARAKEET_CPU_CLASS caps it)"))
        return;
    std::vector<Case> cases(std::begin(kCases), std::end(kCases));
    cases.push_back({64, 2, 700, 651, 2});
    cases.push_back({512, 1, 40, 37, 1});
    int compared = 0;
    for (const YmmBody & y : ymm_bodies()) {
        if (!y.runs) continue;
        std::mt19937 rng(21);
        for (const Case & c : cases) {
            const Inputs in = random_inputs(c, rng);
            const std::vector<float> want = run_op(c, in, AttentionProducts::Int16, false, attention_i16_op);
            const uint64_t trapped_before = parakeet_tests::VexVnniTrap::emulated();
            const auto trap = trap_for(y);
            const std::vector<float> got = run_op(c, in, AttentionProducts::Int16, false, y.body);
            if (y.trapped) CHECK(parakeet_tests::VexVnniTrap::emulated() > trapped_before);  // the VEX code really ran
            int differ = 0;
            for (size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
            if (differ != 0) std::cerr << "  " << y.name << " dk " << c.dk << " frames " << c.frames << ": " << differ << " values differ\n";
            CHECK_EQ(differ, 0);
            ++compared;
        }
    }
    CHECK(compared >= int(cases.size()));  // the AVX2 build at least
}

// Each 256-bit op against float64 on its own (where no AVX512-VNNI is there to compare them with, this
// and the uniform-weights case below are their check).
TEST(i16_attention_ymm_stays_near_float64) {
    if (parakeet_tests::skip_unless(int16_attention_available(64) && cpu_has_avx2(),
                                    "no 14-bit attention row runs here (PARAKEET_CPU_CLASS caps it, or no AVX2)"))
        return;
    for (const YmmBody & y : ymm_bodies()) {
        // Under the trap every VEX VNNI instruction costs a signal; the bit-equality test above already
        // runs that machine code, and bit equality with the 512-bit op carries its float64 bound over.
        if (!y.runs || y.trapped) continue;
        std::cerr << "  " << y.name << "\n";
        check_op(AttentionProducts::Int16, 1e-3, y.body);
    }
}

// 8 significant bits per value (BF16), as the matmuls' inputs on the same tiles: within one 8-bit
// (Q8_0) product's error of float64.
TEST(amx_attention_stays_near_float64) {
    if (!amx_attention_available(64)) {
        parakeet_tests::skip("no AMX-BF16 here (or its probe failed)");
        return;
    }
    check_op(AttentionProducts::AmxBf16, 8e-3);
}

// For linear_out on AMX tiles the op writes the context as BF16 activation tiles: the same numbers
// as its F32 rows rounded to BF16 (nearest even), zero for padded queries and the last tile's rows
// past the frames, in the tile order (per 16 frames and 32 channels, 16 rows of 32 values).
TEST(amx_attention_tiles_are_its_f32_output_in_bf16) {
    if (!amx_attention_available(64)) {
        parakeet_tests::skip("no AMX-BF16 here (or its probe failed)");
        return;
    }
    std::mt19937 rng(33);
    for (const Case & c : {Case{64, 3, 45, 40, 2}, Case{128, 2, 100, 100, 1}, Case{64, 2, 17, 17, 2}}) {
        const Inputs in = random_inputs(c, rng);
        const std::vector<float> rows = run_op(c, in, AttentionProducts::AmxBf16);
        const std::vector<uint16_t> tiles = run_op<uint16_t>(c, in, AttentionProducts::AmxBf16, true);
        const int64_t D = c.dk * c.heads, steps = D / 32;
        int mismatches = 0;
        for (int64_t t = 0; t < (c.frames + 15) / 16 * 16; ++t) {
            for (int64_t ch = 0; ch < D; ++ch) {
                const uint16_t got = tiles[size_t((t / 16 * steps + ch / 32) * 512 + (t % 16) * 32 + ch % 32)];
                const uint16_t want = t < c.frames ? ggml_fp32_to_bf16(rows[size_t(t * D + ch)]).bits : uint16_t(0);
                mismatches += got != want;
            }
        }
        if (mismatches != 0) std::cerr << "  frames " << c.frames << ": " << mismatches << " values differ\n";
        CHECK_EQ(mismatches, 0);
    }
}

// The worst case for the 14-bit context sums: every key equally likely (zero queries and biases)
// and every key's values at their channel's largest magnitude (all keys alike). The context is
// the values themselves; numerators of 32767 each would overflow int32 past 16 keys. The BF16 op
// rounds each value to 8 significant bits (relative 2⁻⁹), and its weights must still add up to 1.
TEST(i16_attention_uniform_weights_over_many_keys) {
    if (parakeet_tests::skip_unless(int16_attention_available(64), "no 14-bit attention row runs on this CPU (or PARAKEET_CPU_CLASS caps it)"))
        return;
    const Case c{64, 2, 700, 700, 2};
    std::mt19937 rng(9);
    Inputs in = random_inputs(c, rng);
    const int64_t D = c.dk * c.heads;
    std::fill(in.q.begin(), in.q.end(), 0.0f);
    std::fill(in.u.begin(), in.u.end(), 0.0f);
    std::fill(in.bv.begin(), in.bv.end(), 0.0f);
    for (int64_t j = 1; j < c.frames; ++j) std::copy(in.v.begin(), in.v.begin() + D, in.v.begin() + j * D);
    std::vector<double> want(size_t(D * c.frames));
    for (int64_t t = 0; t < c.frames; ++t)
        for (int64_t i = 0; i < D; ++i) want[size_t(t * D + i)] = in.v[size_t(i)];
    for (const AttentionProducts products : {AttentionProducts::Int16, AttentionProducts::AmxBf16}) {
        if (products == AttentionProducts::AmxBf16 && !amx_attention_available(c.dk)) continue;
        const double bound = products == AttentionProducts::Int16 ? 1e-3 : 3e-3;
        const double err = relative_l2(run_op(c, in, products), want);
        if (!(err <= bound)) std::cerr << "  uniform weights (" << (products == AttentionProducts::Int16 ? "int16" : "AMX") << "): " << err << "\n";
        CHECK(err <= bound);
    }
    for (const YmmBody & y : ymm_bodies()) {
        if (!y.runs || y.trapped) continue;  // as above: covered bit for bit by the equality test
        const double err = relative_l2(run_op(c, in, AttentionProducts::Int16, false, y.body), want);
        if (!(err <= 1e-3)) std::cerr << "  uniform weights (" << y.name << "): " << err << "\n";
        CHECK(err <= 1e-3);
    }
}
