// Greedy decoders (spec §4): CTC, RNNT (NeMo GreedyRNNTInfer), TDT (NeMo
// GreedyBatchedTDTInfer — the default "greedy_batch" — and GreedyTDTInfer).
#pragma once

#include <atomic>
#include <vector>

#include "parakeet/parakeet.h"
#include "transducer.h"

namespace parakeet {

class PhraseBoost;  // phrase_boost.h: null = plain greedy decoding

struct DecodedToken {
    int id = 0;
    int frame = 0;
    int duration = 1;
    float confidence = 0;
};

/** NeMo max_prob confidence (α = 1) of class k over n logits: (n·p − 1)/(n − 1). */
float max_prob_confidence(const float * logits, int n, int k);

/** logits: [T'][V+1] raw CTC logits; decodes the first `valid` frames. */
std::vector<DecodedToken> ctc_greedy(const std::vector<float> & logits, int classes, int valid, int blank, PhraseBoost * boost = nullptr);

/** enc_proj: [T'][J] joint.enc projections. */
std::vector<DecodedToken> rnnt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                      int max_symbols, const std::atomic<bool> * abort, PhraseBoost * boost = nullptr);

/**
 * rnnt_greedy continued from `state` (NeMo GreedyRNNTInfer with partial hypotheses, as cache-aware
 * streaming decodes chunk after chunk); `state` is left after the last emitted token. Frames are the
 * chunk's own (0 … valid − 1).
 */
std::vector<DecodedToken> rnnt_greedy_continue(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                               int max_symbols, PredictionState & state, const std::atomic<bool> * abort,
                                               PhraseBoost * boost = nullptr);

std::vector<DecodedToken> tdt_greedy(const Transducer & model, const std::vector<float> & enc_proj, int joint_dim, int valid, int blank,
                                     const std::vector<int> & durations, int max_symbols, TdtRule rule, const std::atomic<bool> * abort,
                                     PhraseBoost * boost = nullptr);

}  // namespace parakeet
