// RowSplit (row_split.h): every row of a product is computed once, and a transducer whose products
// share their rows with the helper gives bit-identical states and logits, for the F32 products and
// (where the CPU has AVX512-VNNI) the int8 ones, at sizes that leave tails after every tile.
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "check.h"
#include "decoder_int8_twins.h"
#include "hparams.h"
#include "int8_decoder_vnni.h"
#include "model_weights.h"
#include "row_split.h"
#include "transducer.h"
#include "transducer_hparams.h"

using namespace parakeet;

namespace {

std::vector<float> uniform(size_t n, float bound, std::mt19937 & rng) {
    std::uniform_real_distribution<float> d(-bound, bound);
    std::vector<float> v(n);
    for (float & x : v) x = d(rng);
    return v;
}

bool same_bits(const std::vector<float> & a, const std::vector<float> & b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A 2-layer transducer with sizes off every tile: 4P = 808 LSTM rows, J = 136, 107 outputs.
DecoderWeights make_weights(int P, int J, int V, int durations, bool int8, std::mt19937 & rng) {
    DecoderWeights w;
    const int outputs = V + 1 + durations;
    w.embed = uniform(size_t(V + 1) * size_t(P), 1.0f, rng);
    for (int l = 0; l < 2; ++l) {
        LstmLayer layer;
        layer.input = P;
        layer.hidden = P;
        layer.w_ih = uniform(size_t(4 * P) * size_t(P), 0.1f, rng);
        layer.w_hh = uniform(size_t(4 * P) * size_t(P), 0.1f, rng);
        layer.bias = uniform(size_t(4 * P), 0.1f, rng);
        w.lstm.push_back(layer);
    }
    w.pred_w = uniform(size_t(J) * size_t(P), 0.1f, rng);
    w.pred_b = uniform(size_t(J), 0.1f, rng);
    w.out_w = uniform(size_t(outputs) * size_t(J), 0.1f, rng);
    w.out_b = uniform(size_t(outputs), 0.1f, rng);
    if (int8) w.int8 = parakeet_tests::int8_twins(w, P, J, outputs);
    return w;
}

// `steps` tokens through the same transducer without and with a split: joints of one frame and
// blocks of 4 and 3 frames after each step.
bool split_changes_nothing(const Transducer & t, int J, int steps, std::mt19937 & rng) {
    const std::vector<float> frames = uniform(size_t(4) * size_t(J), 1.0f, rng);
    std::vector<int> tokens(static_cast<size_t>(steps));
    for (int & token : tokens) token = int(rng() % 101u);
    auto run = [&](RowSplit * split, std::vector<std::vector<float>> & out) {
        t.set_split(split);
        PredictionState s = t.initial_state();
        std::vector<float> logits;
        for (int token : tokens) {
            t.joint(frames.data(), s, logits);
            out.push_back(logits);
            t.joint_block(frames.data(), 4, s, logits);
            out.push_back(logits);
            t.joint_block(frames.data(), 3, s, logits);
            out.push_back(logits);
            s = t.advance(s, token);
            out.push_back(s.h.back());
            out.push_back(s.c.back());
            out.push_back(s.pred_proj);
        }
        t.set_split(nullptr);
    };
    std::vector<std::vector<float>> alone, shared;
    run(nullptr, alone);
    {
        RowSplit split;
        run(&split, shared);
    }
    if (alone.size() != shared.size()) return false;
    for (size_t i = 0; i < alone.size(); ++i) {
        if (!same_bits(alone[i], shared[i])) return false;
    }
    return true;
}

}  // namespace

TEST(row_split_covers_every_row_once) {
    RowSplit split;
    std::vector<int> hits(1000);
    for (int run = 0; run < 2000; ++run) {
        const int rows = 1 + run % 1000, align = run % 3 == 0 ? 1 : run % 3 == 1 ? 2 : 8;
        std::fill(hits.begin(), hits.end(), 0);
        split.run(rows, align, [&](int begin, int end) {
            for (int r = begin; r < end; ++r) ++hits[size_t(r)];
        });
        for (int r = 0; r < 1000; ++r) CHECK(hits[size_t(r)] == (r < rows ? 1 : 0));
    }
}

TEST(row_split_transducer_equals_one_thread) {
    std::mt19937 rng(11);
    const int P = 202, J = 136, V = 101;
    const Hparams hp = parakeet_tests::transducer_hparams(V, P, 2, J, {0, 1, 2, 3, 4});
    const DecoderWeights f32 = make_weights(P, J, V, 5, false, rng);
    const Transducer a(hp, f32);
    CHECK(split_changes_nothing(a, J, 12, rng));
    if (!Int8Rows::supported()) {
        parakeet_tests::skip("the F32 part passed; the int8 part needs AVX2");
        return;
    }
    const DecoderWeights int8 = make_weights(P, J, V, 5, true, rng);
    const Transducer b(hp, int8);
    CHECK(split_changes_nothing(b, J, 12, rng));
}
