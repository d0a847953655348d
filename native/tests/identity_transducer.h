// Decoder test fixtures: hand-made logit rows, and a transducer whose joint
// returns its encoder projections (through ReLU) whatever the prediction state.
#pragma once

#include <memory>
#include <vector>

#include "hparams.h"
#include "model_weights.h"
#include "transducer.h"
#include "transducer_hparams.h"

namespace parakeet_tests {

/** Rows of `classes` logits, each with `winner` at `high` and every other class at 0. */
inline std::vector<float> one_hot_rows(const std::vector<std::vector<int>> & winners, int classes, float high = 5.0f) {
    std::vector<float> out;
    for (const std::vector<int> & row : winners) {
        std::vector<float> logits(size_t(classes), 0.0f);
        for (int k : row) logits[size_t(k)] = high;
        out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
}

/** A transducer whose joint returns ReLU(f): vocabulary `vocab`, blank = vocab, `durations` (empty: RNNT). */
struct IdentityTransducer {
    parakeet::Hparams hp;
    parakeet::DecoderWeights w;
    std::unique_ptr<parakeet::Transducer> model;

    IdentityTransducer(int vocab, std::vector<int> durations) {
        const int P = 2;
        const int outputs = vocab + 1 + int(durations.size());
        hp = transducer_hparams(vocab, P, 1, outputs, std::move(durations));
        w.embed.assign(size_t((vocab + 1) * P), 0.0f);
        parakeet::LstmLayer layer;
        layer.input = P;
        layer.hidden = P;
        layer.w_ih.assign(size_t(4 * P * P), 0.0f);
        layer.w_hh.assign(size_t(4 * P * P), 0.0f);
        layer.bias.assign(size_t(4 * P), 0.0f);
        w.lstm.push_back(layer);
        w.pred_w.assign(size_t(outputs * P), 0.0f);
        w.pred_b.assign(size_t(outputs), 0.0f);
        w.out_w.assign(size_t(outputs * outputs), 0.0f);
        for (int i = 0; i < outputs; ++i) w.out_w[size_t(i * outputs + i)] = 1.0f;
        w.out_b.assign(size_t(outputs), 0.0f);
        model = std::make_unique<parakeet::Transducer>(hp, w);
    }
    int outputs() const { return hp.joint_hidden; }
};

}  // namespace parakeet_tests
