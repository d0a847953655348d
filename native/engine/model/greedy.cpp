#include "greedy.h"

#include <algorithm>
#include <cmath>

#include "phrase_boost.h"

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

/**
 * Joint logits, computed a block of consecutive frames at a time under the
 * current prediction state. The greedy loops mostly walk forward over blank
 * frames with an unchanged state, so one block evaluation (each weight row read
 * once for all frames) replaces several; an emitted token changes the state and
 * drops the rest of the block. The block grows while blocks are used up and
 * shrinks when tokens cut them short. The numbers are the same as frame by frame.
 */
class JointCache {
public:
    JointCache(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid)
            : model_(model),
              enc_proj_(enc_proj),
              joint_dim_(joint_dim),
              valid_(valid) {}

    /** Logits of frame t for the state with this version number. */
    const float * at(int t, const PredictionState & state, unsigned version) {
        if (version != version_ || t < first_ || t >= first_ + count_) {
            const bool used_up = version == version_ && t >= first_ + count_;
            block_ = used_up ? std::min(kMaxBlock, block_ * 2) : std::max(1, std::min(block_, (last_used_ - first_ + 1) * 2));
            first_ = t;
            count_ = std::min(block_, valid_ - t);
            version_ = version;
            model_.joint_block(enc_proj_.data() + size_t(t) * size_t(joint_dim_), count_, state, logits_);
        }
        last_used_ = t;
        return logits_.data() + size_t(t - first_) * size_t(model_.outputs());
    }

private:
    static constexpr int kMaxBlock = 16;
    const Transducer & model_;
    const std::vector<float> & enc_proj_;
    int joint_dim_, valid_;
    std::vector<float> logits_;
    unsigned version_ = ~0u;
    int first_ = 0, count_ = 0, block_ = 2, last_used_ = 0;
};

}  // namespace

float max_prob_confidence(const float * logits, int n, int k) {
    float max = logits[0];
    for (int i = 1; i < n; ++i) max = std::max(max, logits[i]);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i]) - max);
    const double p = std::exp(double(logits[k]) - max) / sum;
    return n > 1 ? float((n * p - 1.0) / (n - 1.0)) : 1.0f;
}

std::vector<DecodedToken> ctc_greedy(const std::vector<float> & logits, int classes, int valid, int blank, PhraseBoost * boost) {
    // NeMo GreedyCTCInfer: argmax per frame, collapse repeats, drop blanks.
    // A token's confidence aggregates its run of frames with "min" (NeMo's
    // ConfidenceConfig default aggregation).
    std::vector<DecodedToken> out;
    int prev = blank;
    for (int t = 0; t < valid; ++t) {
        const float * row = logits.data() + size_t(t) * classes;
        const int k = argmax(row, 0, classes);
        if (k != blank && k == prev && !out.empty()) {
            out.back().confidence = std::min(out.back().confidence, max_prob_confidence(row, classes, out.back().id));
        } else if (k != blank) {
            DecodedToken tok;
            tok.id = boost != nullptr ? boost->choose(row, k, t) : k;  // a run of k frames is one decision
            tok.frame = t;
            tok.confidence = max_prob_confidence(row, classes, tok.id);
            out.push_back(tok);
            if (boost != nullptr) boost->accept(tok.id, t);
        }
        prev = k;
    }
    if (boost != nullptr) boost->finish(valid);
    // Span: up to the next emitted token; the last one spans a single frame.
    for (size_t i = 0; i + 1 < out.size(); ++i) out[i].duration = out[i + 1].frame - out[i].frame;
    if (!out.empty()) out.back().duration = 1;
    return out;
}

std::vector<DecodedToken> rnnt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                      int max_symbols, const std::atomic<bool> * abort, PhraseBoost * boost) {
    PredictionState state = model.initial_state();
    std::vector<DecodedToken> out = rnnt_greedy_continue(model, enc_proj, joint_dim, valid, blank, max_symbols, state, abort, boost);
    if (boost != nullptr) boost->finish(valid);
    return out;
}

std::vector<DecodedToken> rnnt_greedy_continue(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                               int max_symbols, PredictionState & state, const std::atomic<bool> * abort, PhraseBoost * boost) {
    std::vector<DecodedToken> out;
    unsigned version = 0;
    JointCache joint(model, enc_proj, joint_dim, valid);
    const int classes = blank + 1;
    for (int t = 0; t < valid; ++t) {
        check_abort(abort);
        for (int emitted = 0; emitted < max_symbols; ++emitted) {
            const float * logits = joint.at(t, state, version);
            int k = argmax(logits, 0, classes);
            if (boost != nullptr) k = boost->choose(logits, k, t);
            if (k == blank) break;
            out.push_back({k, t, 1, max_prob_confidence(logits, classes, k)});
            if (boost != nullptr) boost->accept(k, t);
            state = model.advance(state, k);
            ++version;
        }
    }
    return out;
}

std::vector<DecodedToken> tdt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                     const std::vector<int> & durations, int max_symbols, TdtRule rule, const std::atomic<bool> * abort,
                                     PhraseBoost * boost) {
    std::vector<DecodedToken> out;
    PredictionState state = model.initial_state();
    unsigned version = 0;
    JointCache joint(model, enc_proj, joint_dim, valid);
    const float * logits = nullptr;
    const int classes = blank + 1;
    const int n_dur = int(durations.size());
    auto decide = [&](int t, int & k, int & d) {
        logits = joint.at(t, state, version);
        k = argmax(logits, 0, classes);
        if (boost != nullptr) k = boost->choose(logits, k, t);  // the duration stays the model's own
        d = durations[size_t(argmax(logits, classes, classes + n_dur) - classes)];
    };
    auto emit = [&](int k, int t, int d) {
        out.push_back({k, t, d, max_prob_confidence(logits, classes, k)});
        if (boost != nullptr) boost->accept(k, t);
        state = model.advance(state, k);
        ++version;
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
    if (boost != nullptr) boost->finish(valid);
    return out;
}

}  // namespace parakeet
