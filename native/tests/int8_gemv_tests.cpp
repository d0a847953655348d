// The decoders' int8 products (int8_decoder_vnni.h: per row under weightType 'int8', per 32-block for a
// quantized file under 'auto'): against a float64 product of the same F32 weights, a block of
// vectors against the same vectors one by one, and a transducer on them against the same
// transducer on F32; each on every kernel this CPU runs (int8_decoder_vnni, int8_decoder_avx2), and
// the two kernels' outputs equal. Skipped (and said so) where the CPU has no AVX2.
#include <cmath>
#include <iostream>
#include <random>
#include <utility>
#include <vector>

#include "check.h"
#include "decoder_int8_twins.h"
#include "hparams.h"
#include "int8_decoder_vnni.h"
#include "model_weights.h"
#include "transducer.h"
#include "transducer_hparams.h"

using namespace parakeet;

namespace {

/** The int8 products run on AVX2 and up; elsewhere the case is reported as skipped (ctest). */
bool skipped() {
    if (Int8Rows::supported()) return false;
    parakeet_tests::skip("this CPU has no AVX2, so the decoder stays F32");
    return true;
}

/** The kernels this CPU (under PARAKEET_CPU_CLASS) runs the products on. */
std::vector<Int8Kernel> kernels_here() {
    std::vector<Int8Kernel> out;
    for (const Int8Kernel k : {Int8Kernel::Vnni512, Int8Kernel::Avx2}) {
        if (int8_kernel_runs_here(k)) out.push_back(k);
    }
    return out;
}

std::vector<float> uniform(size_t n, float bound, std::mt19937 & rng) {
    std::uniform_real_distribution<float> d(-bound, bound);
    std::vector<float> v(n);
    for (float & x : v) x = d(rng);
    return v;
}

double rel_l2(const std::vector<double> & ref, const float * got) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        num += (got[i] - ref[i]) * (got[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return std::sqrt(num / den);
}

}  // namespace

namespace {

// Row counts off the 8-row tile, column counts off the 64-byte chunk, and the decoder's shapes.
void gemv_matches_float64(double bound, Int8Kernel kernel) {
    std::mt19937 rng(7);
    const std::vector<std::pair<int, int>> shapes{{2560, 640}, {1030, 640}, {13, 17}, {9, 130}, {1, 64}};
    for (const auto & s : shapes) {
        const int rows = s.first, cols = s.second;
        const std::vector<float> w = uniform(size_t(rows) * size_t(cols), 1.0f / std::sqrt(float(cols)), rng);
        const std::vector<float> x = uniform(size_t(cols), 1.0f, rng), b = uniform(size_t(rows), 0.5f, rng);
        std::vector<double> ref(static_cast<size_t>(rows)), ref_acc(static_cast<size_t>(rows));
        for (int o = 0; o < rows; ++o) {
            double d = 0.0;
            for (int i = 0; i < cols; ++i) d += double(w[size_t(o) * size_t(cols) + size_t(i)]) * x[size_t(i)];
            ref[size_t(o)] = b[size_t(o)] + d;
            ref_acc[size_t(o)] = 1.0 + d;
        }
        const Int8Rows q(w, rows, cols, kernel);
        Int8Inputs room;
        std::vector<float> y(static_cast<size_t>(rows), -99.0f), acc(static_cast<size_t>(rows), 1.0f);
        q.gemv(x.data(), b.data(), y.data(), false, room);
        q.gemv(x.data(), nullptr, acc.data(), true, room);
        const double e = rel_l2(ref, y.data()), ea = rel_l2(ref_acc, acc.data());
        if (!(e > 0.0 && e < 2e-2 && ea > 0.0 && ea < 2e-2)) {
            std::cerr << rows << "x" << cols << ": rel L2 " << e << " (accumulate " << ea << ")\n";
        }
        CHECK(e > 0.0 && e < bound);  // lossy (so it ran), within 8-bit error on both sides
        CHECK(ea > 0.0 && ea < bound);
    }
}

}  // namespace

TEST(int8_gemv_matches_float64_within_int8_error) {
    if (skipped()) return;
    for (const Int8Kernel k : kernels_here()) gemv_matches_float64(2e-2, k);
}

// The AVX2 twin computes the 512-bit kernel's integer dot products and scales them with the same
// fused rounding: every output equal, one vector and blocks of vectors, bias and accumulate.
TEST(int8_gemv_kernels_give_equal_outputs) {
    if (parakeet_tests::skip_unless(int8_kernel_runs_here(Int8Kernel::Vnni512), "needs AVX512-VNNI to compare the AVX2 twin with")) return;
    std::mt19937 rng(5);
    for (const auto & s : std::vector<std::pair<int, int>>{{1030, 640}, {13, 17}, {9, 130}, {24, 200}}) {
        const int rows = s.first, cols = s.second, k = 7;
        const std::vector<float> w = uniform(size_t(rows) * size_t(cols), 1.0f / std::sqrt(float(cols)), rng);
        const std::vector<float> X = uniform(size_t(k) * size_t(cols), 1.0f, rng), b = uniform(size_t(rows), 0.5f, rng);
        const Int8Rows wide(w, rows, cols, Int8Kernel::Vnni512), narrow(w, rows, cols, Int8Kernel::Avx2);
        Int8Inputs room;
        std::vector<float> yw(size_t(rows), 1.0f), yn(size_t(rows), 1.0f), Yw(size_t(k) * size_t(rows)), Yn(size_t(k) * size_t(rows));
        wide.gemv(X.data(), b.data(), yw.data(), false, room);
        narrow.gemv(X.data(), b.data(), yn.data(), false, room);
        CHECK(yw == yn);
        wide.gemv(X.data() + cols, nullptr, yw.data(), true, room);
        narrow.gemv(X.data() + cols, nullptr, yn.data(), true, room);
        CHECK(yw == yn);
        wide.gemv_block(X.data(), k, b.data(), Yw.data(), room);
        narrow.gemv_block(X.data(), k, b.data(), Yn.data(), room);
        CHECK(Yw == Yn);
    }
}

namespace {

// The joint evaluates blocks of frames (greedy.cpp, JointCache) and must give the numbers a
// frame-by-frame evaluation gives.
void block_equals_one_at_a_time(Int8Kernel kernel) {
    std::mt19937 rng(11);
    const int rows = 1031, cols = 200;
    const std::vector<float> w = uniform(size_t(rows) * size_t(cols), 0.1f, rng), b = uniform(size_t(rows), 0.5f, rng);
    const Int8Rows q(w, rows, cols, kernel);
    Int8Inputs room;
    for (int k = 1; k <= 9; ++k) {
        const std::vector<float> X = uniform(size_t(k) * size_t(cols), 2.0f, rng);
        std::vector<float> Y(size_t(k) * size_t(rows));
        std::vector<float> y(static_cast<size_t>(rows));
        q.gemv_block(X.data(), k, b.data(), Y.data(), room);
        for (int c = 0; c < k; ++c) {
            q.gemv(X.data() + size_t(c) * size_t(cols), b.data(), y.data(), false, room);
            bool same = true;
            for (int o = 0; o < rows; ++o) same = same && y[size_t(o)] == Y[size_t(c) * size_t(rows) + size_t(o)];
            CHECK(same);
        }
    }
}

}  // namespace

TEST(int8_gemv_block_equals_one_vector_at_a_time) {
    if (skipped()) return;
    for (const Int8Kernel k : kernels_here()) block_equals_one_at_a_time(k);
}

namespace {

// A 2-layer prediction LSTM and joint at Parakeet's sizes (P = J = 640), PyTorch's default
// initialisation scale, fed the same 40 tokens: the joint's logits on int8 stay within a few
// per cent of F32's after every step (the LSTM state carries the error forward).
void transducer_follows_f32(double max_rel) {
    std::mt19937 rng(3);
    const int P = 640, J = 640, V = 1024;
    const Hparams hp = parakeet_tests::transducer_hparams(V, P, 2, J, {0, 1, 2, 3, 4});
    const int outputs = V + 1 + 5;
    const float bound = 1.0f / std::sqrt(float(P));
    DecoderWeights f32;
    f32.embed = uniform(size_t(V + 1) * size_t(P), 1.0f, rng);
    for (int l = 0; l < 2; ++l) {
        LstmLayer layer;
        layer.input = P;
        layer.hidden = P;
        layer.w_ih = uniform(size_t(4 * P) * size_t(P), bound, rng);
        layer.w_hh = uniform(size_t(4 * P) * size_t(P), bound, rng);
        layer.bias = uniform(size_t(4 * P), bound, rng);
        f32.lstm.push_back(layer);
    }
    f32.pred_w = uniform(size_t(J) * size_t(P), bound, rng);
    f32.pred_b = uniform(size_t(J), bound, rng);
    f32.out_w = uniform(size_t(outputs) * size_t(J), 1.0f / std::sqrt(float(J)), rng);
    f32.out_b = uniform(size_t(outputs), 0.1f, rng);
    DecoderWeights int8;
    int8.embed = f32.embed;
    int8.lstm = f32.lstm;
    int8.pred_w = f32.pred_w;
    int8.pred_b = f32.pred_b;
    int8.out_w = f32.out_w;
    int8.out_b = f32.out_b;
    int8.int8 = parakeet_tests::int8_twins(f32, P, J, outputs);

    const Transducer a(hp, f32), b(hp, int8);
    PredictionState sa = a.initial_state(), sb = b.initial_state();
    const std::vector<float> frame = uniform(size_t(J), 1.0f, rng);
    std::vector<float> la, lb;
    double worst = 0.0;
    int same_argmax = 0;
    const int steps = 40;
    for (int step = 0; step < steps; ++step) {
        a.joint(frame.data(), sa, la);
        b.joint(frame.data(), sb, lb);
        std::vector<double> ref(la.begin(), la.end());
        worst = std::max(worst, rel_l2(ref, lb.data()));
        int ia = 0, ib = 0;
        for (int k = 1; k <= V; ++k) {
            if (la[size_t(k)] > la[size_t(ia)]) ia = k;
            if (lb[size_t(k)] > lb[size_t(ib)]) ib = k;
        }
        same_argmax += ia == ib;
        const int token = int(rng() % unsigned(V));
        sa = a.advance(sa, token);
        sb = b.advance(sb, token);
    }
    std::cout << "int8 transducer vs F32: worst joint rel L2 " << worst << ", same label argmax " << same_argmax << "/" << steps << "\n";
    CHECK(worst > 0.0 && worst < max_rel);
    CHECK(same_argmax >= steps * 9 / 10);
}

}  // namespace

TEST(int8_transducer_follows_the_f32_transducer) {
    if (skipped()) return;
    transducer_follows_f32(3e-2);
}
