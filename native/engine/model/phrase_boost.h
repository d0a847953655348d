// Phrase boosting inside the greedy decoders (greedy.h): the decoders call
// choose() at each decision and accept() after each emitted token; the rest is here.
//
// Why greedy, not beam: the engine's decoders are NeMo's greedy ones and the
// app's output must stay bit-identical to them without a vocabulary; a beam
// would change every decision, cost a multiple of the joint evaluations on the
// transducers, and is where boosted TDT misfires elsewhere (empty or
// hallucinated results from beam hotwords). Greedy boosting changes a decision
// only where a phrase-extending token is within its bounded bonus of the winner.
//
// Backoff, defined for greedy decoding: a greedy decoder cannot keep the
// unboosted hypothesis beside the boosted one, so "a failed prefix gives back
// its award" is made literal: when a live prefix fails (the next token does not
// extend it, or the audio ends inside it) and the bonus changed any decision of
// that prefix, the frames from the prefix's start to the failure are marked, and
// the window is decoded again with no bonus on those frames: the decisions the
// award bought are undone and the unboosted ones come back. A completed phrase
// keeps its bonus. decode_with_phrases() runs these passes (at most kMaxPasses;
// past that, a pass with every frame unboosted, which is the plain greedy decode).
#pragma once

#include <vector>

#include "greedy.h"
#include "phrase_graph.h"

namespace parakeet {

struct FrameSpan {
    int first = 0, last = 0;  // inclusive
};

class PhraseBoost {
public:
    PhraseBoost(const PhraseGraph & graph, int blank, std::vector<FrameSpan> quiet);

    /**
     * The class to emit at frame `frame`, where the decoder's argmax is `best`.
     * Guards: a blank decision is never changed (no phrase out of silence or
     * noise, and a transducer's frame advance stays the model's); only a token
     * that extends the live prefix may win, only over a token of the same kind
     * (word start or word continuation), and only by its bounded bonus.
     */
    int choose(const float * logits, int best, int frame);
    /** The token the decoder emitted at `frame` (after choose()). */
    void accept(int token, int frame);
    /** The decoder reached the end of the window at frame `end`. */
    void finish(int end);

    /** Phrases completed in this pass (indices into the graph), in order. */
    const std::vector<int> & fired() const { return fired_; }
    /** Frames of failed prefixes whose bonus changed a decision (the next pass leaves them unboosted). */
    const std::vector<FrameSpan> & failed() const { return failed_; }

private:
    bool quiet(int frame) const;
    void reset();
    void fail(int frame);
    void step_from_root(int token, int frame);
    void move(const PhraseEdge & e, int frame);

    const PhraseGraph & graph_;
    int blank_;
    std::vector<FrameSpan> quiet_;
    std::vector<int> fired_;
    std::vector<FrameSpan> failed_;
    int node_ = PhraseGraph::kRoot;
    float awarded_ = 0;         // bonus given along the live prefix (≤ PhraseBonus::kMaxPerPhrase)
    int start_frame_ = 0;       // where the live prefix (or its part after a completed phrase) began
    bool flipped_ = false;      // the bonus changed a decision of that part
    int completed_ = -1;        // a phrase the live prefix already completed (kept if an extension fails)
    bool last_flipped_ = false; // the last choose() changed the decision
};

/**
 * Decodes with phrase boosting: `decode(boost)` runs one greedy pass (boost may be null = unboosted);
 * passes repeat while failed prefixes had bought decisions. Fills `fired` with phrase indices.
 */
template <class Decode>
std::vector<DecodedToken> decode_with_phrases(const PhraseGraph & graph, int blank, Decode && decode, std::vector<int> & fired) {
    constexpr int kMaxPasses = 4;
    std::vector<FrameSpan> quiet;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        PhraseBoost boost(graph, blank, quiet);
        std::vector<DecodedToken> tokens = decode(&boost);
        if (boost.failed().empty()) {
            fired = boost.fired();
            return tokens;
        }
        quiet.insert(quiet.end(), boost.failed().begin(), boost.failed().end());
    }
    PhraseBoost unboosted(graph, blank, {FrameSpan{0, 1 << 30}});  // finds phrases, changes nothing
    std::vector<DecodedToken> tokens = decode(&unboosted);
    fired = unboosted.fired();
    return tokens;
}

}  // namespace parakeet
