#include "greedy.h"

#include <algorithm>
#include <cmath>

namespace parakeet {
namespace {

/** argmax over [begin, end), ties to the lowest index (torch.argmax). */
int argmax(const float * v, int begin, int end) {
    int best = begin;
    for (int i = begin + 1; i < end; ++i) {
        if (v[i] > v[best]) best = i;
    }
    return best;
}

void check_abort(const std::atomic<bool> * abort) {
    if (abort != nullptr && abort->load(std::memory_order_relaxed)) throw Error(ErrorCode::Aborted, "transcription cancelled");
}

}  // namespace

float max_prob_confidence(const float * logits, int n, int k) {
    float max = logits[0];
    for (int i = 1; i < n; ++i) max = std::max(max, logits[i]);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i]) - max);
    const double p = std::exp(double(logits[k]) - max) / sum;
    return n > 1 ? float((n * p - 1.0) / (n - 1.0)) : 1.0f;
}

std::vector<DecodedToken> ctc_greedy(const std::vector<float> & logits, int classes, int valid, int blank) {
    // NeMo GreedyCTCInfer: argmax per frame, collapse repeats, drop blanks.
    // A token's confidence aggregates its run of frames with "min" (NeMo's
    // ConfidenceConfig default aggregation).
    std::vector<DecodedToken> out;
    int prev = blank;
    for (int t = 0; t < valid; ++t) {
        const float * row = logits.data() + size_t(t) * classes;
        const int k = argmax(row, 0, classes);
        if (k != blank && k == prev && !out.empty()) {
            out.back().confidence = std::min(out.back().confidence, max_prob_confidence(row, classes, k));
        } else if (k != blank) {
            DecodedToken tok;
            tok.id = k;
            tok.frame = t;
            tok.confidence = max_prob_confidence(row, classes, k);
            out.push_back(tok);
        }
        prev = k;
    }
    // Span: up to the next emitted token; the last one spans a single frame.
    for (size_t i = 0; i + 1 < out.size(); ++i) out[i].duration = out[i + 1].frame - out[i].frame;
    if (!out.empty()) out.back().duration = 1;
    return out;
}

std::vector<DecodedToken> rnnt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                      int max_symbols, const std::atomic<bool> * abort) {
    std::vector<DecodedToken> out;
    PredictionState state = model.initial_state();
    std::vector<float> logits;
    const int classes = blank + 1;
    for (int t = 0; t < valid; ++t) {
        check_abort(abort);
        const float * f = enc_proj.data() + size_t(t) * joint_dim;
        for (int emitted = 0; emitted < max_symbols; ++emitted) {
            model.joint(f, state, logits);
            const int k = argmax(logits.data(), 0, classes);
            if (k == blank) break;
            out.push_back({k, t, 1, max_prob_confidence(logits.data(), classes, k)});
            state = model.advance(state, k);
        }
    }
    return out;
}

std::vector<DecodedToken> tdt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                     const std::vector<int> & durations, int max_symbols, TdtRule rule, const std::atomic<bool> * abort) {
    std::vector<DecodedToken> out;
    PredictionState state = model.initial_state();
    std::vector<float> logits;
    const int classes = blank + 1;
    const int n_dur = int(durations.size());
    auto decide = [&](int t, int & k, int & d) {
        model.joint(enc_proj.data() + size_t(t) * joint_dim, state, logits);
        k = argmax(logits.data(), 0, classes);
        d = durations[size_t(argmax(logits.data(), classes, classes + n_dur) - classes)];
    };
    auto emit = [&](int k, int t, int d) {
        out.push_back({k, t, d, max_prob_confidence(logits.data(), classes, k)});
        state = model.advance(state, k);
    };

    int t = 0;
    if (rule == TdtRule::Greedy) {
        // NeMo GreedyTDTInfer._greedy_decode: every decision on a frame counts
        // toward max_symbols; at the limit the frame advances by one more.
        while (t < valid) {
            check_abort(abort);
            int symbols = 0;
            bool blank_zero = false;
            while (true) {
                int k, d;
                decide(t, k, d);
                if (k != blank) emit(k, t, d);
                ++symbols;
                t += d;
                if (d > 0) break;
                if (k == blank) {
                    t += 1;
                    blank_zero = true;
                    break;
                }
                if (symbols == max_symbols) break;
            }
            if (!blank_zero && symbols == max_symbols) t += 1;
        }
    } else {
        // NeMo GreedyBatchedTDTInfer (loop over labels): blanks advance by their
        // duration (at least one frame) and do not count; labels emitted with
        // duration 0 count, and the max_symbols-th forces one frame forward.
        int symbols = 0;
        while (t < valid) {
            check_abort(abort);
            int k, d;
            decide(t, k, d);
            if (k == blank) {
                t += d > 0 ? d : 1;
                symbols = 0;
                continue;
            }
            emit(k, t, d);
            if (d > 0) {
                t += d;
                symbols = 0;
            } else if (++symbols >= max_symbols) {
                t += 1;
                symbols = 0;
            }
        }
    }
    return out;
}

}  // namespace parakeet
