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

#include <algorithm>
#include <utility>
#include <vector>

#include "greedy.h"
#include "phrase_graph.h"

namespace parakeet {

struct FrameSpan {
    int first = 0, last = 0;  // inclusive
};

/** A caller's non-speech seconds (TranscribeParams/StreamParams::non_speech) as encoder frames in [0, frames). */
std::vector<FrameSpan> non_speech_frames(const std::vector<AudioWindow> & ranges, double offset_sec, double frame_sec, int frames);
/** Error(BadArgument) naming a range that is not finite seconds with start <= end. */
void check_non_speech(const std::vector<AudioWindow> & ranges);

class PhraseBoost {
public:
    PhraseBoost(const PhraseGraph & graph, int blank, std::vector<FrameSpan> quiet);

    /** Streams: the frames the decoder passes are a chunk's own; this is the chunk's first global frame. */
    void set_frame_offset(int first) { offset_ = first; }
    /** Frames (global) on which no bonus applies in the next decisions. */
    void set_quiet(std::vector<FrameSpan> quiet) { quiet_ = std::move(quiet); }
    /** Streams: forgets what earlier chunks fired and failed; the live prefix stays. */
    void clear_results() {
        fired_.clear();
        failed_.clear();
    }

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

    /**
     * Streams: the live prefix bought a decision and is not a complete phrase yet; `from` is where it
     * began. A chunk ending so would commit a purchase the phrase may never repay.
     */
    bool open_purchase(int & from) const {
        if (node_ == PhraseGraph::kRoot || !flipped_ || graph_->node(node_).phrase >= 0) return false;
        from = start_frame_;
        return true;
    }
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

    const PhraseGraph * graph_;  // a pointer, so a stream can restore a copy taken at a chunk's start
    int blank_;
    int offset_ = 0;
    std::vector<FrameSpan> quiet_;
    std::vector<int> fired_;
    std::vector<FrameSpan> failed_;
    int node_ = PhraseGraph::kRoot;
    float awarded_ = 0;          // bonus given along the live prefix (≤ PhraseBonus::kMaxPerPhrase)
    int start_frame_ = 0;        // where the live prefix (or its part after a completed phrase) began
    bool flipped_ = false;       // the bonus changed a decision of that part
    int completed_ = -1;         // a phrase the live prefix already completed (kept if an extension fails)
    bool last_flipped_ = false;  // the last choose() changed the decision
};

/**
 * Decodes with phrase boosting: `decode(boost)` runs one greedy pass (boost may be null = unboosted);
 * passes repeat while failed prefixes had bought decisions. Fills `fired` with phrase indices.
 * `quiet`: frames never boosted from the first pass on (the caller's non-speech).
 */
template <class Decode>
std::vector<DecodedToken> decode_with_phrases(const PhraseGraph & graph, int blank, Decode && decode, std::vector<int> & fired,
                                              std::vector<FrameSpan> quiet = {}) {
    constexpr int kMaxPasses = 4;
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

/**
 * Streams: one chunk decoded with the phrase state the chunks before left in `carried` (advanced on
 * return). Committed tokens never change, so backoff stays inside the chunk: when a prefix failed with
 * bought decisions, or the chunk would end inside a prefix that bought one (its phrase may never come,
 * and the tokens are final once returned), `decode(boost)` (which restarts the chunk from its
 * prediction state) runs again with those frames of this chunk unboosted; at most kMaxPasses, then the
 * chunk unboosted. So a chunk commits a bought token only inside a phrase it completes; the prefix
 * state (what the unboosted tokens matched) still carries to the next chunk. `non_speech`: global frames
 * never boosted (the caller's VAD).
 */
template <class Decode>
std::vector<DecodedToken> decode_chunk_with_phrases(PhraseBoost & carried, int first, int frames, Decode && decode, std::vector<int> & fired,
                                                    const std::vector<FrameSpan> & non_speech = {}) {
    constexpr int kMaxPasses = 4;
    const int last = first + frames - 1;
    const PhraseBoost start = carried;
    std::vector<FrameSpan> quiet;
    std::vector<DecodedToken> tokens;
    for (int pass = 0; pass <= kMaxPasses; ++pass) {
        carried = start;
        carried.clear_results();
        std::vector<FrameSpan> unboosted = pass < kMaxPasses ? quiet : std::vector<FrameSpan>{FrameSpan{first, last}};
        unboosted.insert(unboosted.end(), non_speech.begin(), non_speech.end());
        carried.set_quiet(std::move(unboosted));
        tokens = decode(&carried);
        bool new_quiet = false;
        std::vector<FrameSpan> undo = carried.failed();
        int from = 0;
        if (carried.open_purchase(from)) undo.push_back({from, last});
        for (const FrameSpan & f : undo) {
            const FrameSpan inside{std::max(f.first, first), std::min(f.last, last)};
            if (inside.first > inside.last) continue;
            const bool covered =
                    std::any_of(quiet.begin(), quiet.end(), [&](const FrameSpan & q) { return q.first <= inside.first && inside.last <= q.last; });
            if (!covered) {
                quiet.push_back(inside);
                new_quiet = true;
            }
        }
        if (!new_quiet) break;
    }
    fired = carried.fired();
    return tokens;
}

}  // namespace parakeet
