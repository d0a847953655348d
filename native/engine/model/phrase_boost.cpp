#include "phrase_boost.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace parakeet {

PhraseBoost::PhraseBoost(const PhraseGraph & graph, int blank, std::vector<FrameSpan> quiet)
        : graph_(&graph),
          blank_(blank),
          quiet_(std::move(quiet)) {}

std::vector<FrameSpan> non_speech_frames(const std::vector<AudioWindow> & ranges, double offset_sec, double frame_sec, int frames) {
    std::vector<FrameSpan> out;
    for (const AudioWindow & r : ranges) {
        // Every frame a range touches; clamped as doubles first, so a range far outside cannot overflow the int.
        const int first = int(std::clamp(std::floor((r.start - offset_sec) / frame_sec), 0.0, double(frames)));
        const int last = int(std::clamp(std::ceil((r.end - offset_sec) / frame_sec), 0.0, double(frames))) - 1;
        if (first <= last) out.push_back({first, last});
    }
    return out;
}

void check_non_speech(const std::vector<AudioWindow> & ranges) {
    for (const AudioWindow & r : ranges) {
        if (!(std::isfinite(r.start) && std::isfinite(r.end) && r.start <= r.end)) {
            throw Error(ErrorCode::BadArgument, "a non-speech range is " + std::to_string(r.start) + " .. " + std::to_string(r.end) +
                                                        " s; give finite seconds with start <= end");
        }
    }
}

bool PhraseBoost::quiet(int frame) const {
    return std::any_of(quiet_.begin(), quiet_.end(), [frame](const FrameSpan & s) { return frame >= s.first && frame <= s.last; });
}

int PhraseBoost::choose(const float * logits, int best, int frame) {
    frame += offset_;
    last_flipped_ = false;
    // Guard: blank stays blank, so a phrase never starts (or grows) where the model heard nothing.
    if (best == blank_ || quiet(frame)) return best;
    // Guard: the bonus is bounded per token (PhraseGraph, kMaxPerToken) and along the prefix (kMaxPerPhrase).
    const float room = PhraseBonus::kMaxPerPhrase - awarded_;
    auto bonus = [room](const PhraseEdge & e) { return std::max(0.0f, std::min(e.bonus, room)); };
    float best_score = logits[best];
    if (const PhraseEdge * own = graph_->edge(node_, best)) best_score += bonus(*own);
    const bool starts = graph_->starts_word(best);
    int choice = best;
    for (const PhraseEdge & e : graph_->node(node_).edges) {
        // Guard: a word start replaces a word start, a word piece a word piece: a bonus never splits or joins words.
        if (e.token == best || e.token >= blank_ || graph_->starts_word(e.token) != starts) continue;
        const float score = logits[e.token] + bonus(e);
        if (score > best_score) {
            best_score = score;
            choice = e.token;
        }
    }
    last_flipped_ = choice != best;
    return choice;
}

void PhraseBoost::move(const PhraseEdge & e, int /*frame*/) {
    awarded_ += std::max(0.0f, std::min(e.bonus, PhraseBonus::kMaxPerPhrase - awarded_));
    flipped_ = flipped_ || last_flipped_;
    node_ = e.child;
}

void PhraseBoost::reset() {
    node_ = PhraseGraph::kRoot;
    awarded_ = 0;
    flipped_ = false;
    completed_ = -1;
}

void PhraseBoost::fail(int frame) {
    if (completed_ >= 0) fired_.push_back(completed_);
    if (flipped_) failed_.push_back({start_frame_, frame});
}

void PhraseBoost::step_from_root(int token, int frame) {
    if (const PhraseEdge * e = graph_->edge(PhraseGraph::kRoot, token)) {
        start_frame_ = frame;
        move(*e, frame);
    }
}

void PhraseBoost::accept(int token, int frame) {
    frame += offset_;
    if (node_ == PhraseGraph::kRoot) {
        step_from_root(token, frame);
        return;
    }
    const int here = graph_->node(node_).phrase;
    if (const PhraseEdge * e = graph_->edge(node_, token)) {
        if (here >= 0) {
            // Past a completed phrase: it is kept if the longer one fails, unless this token continues its last word.
            if (graph_->starts_word(token)) {
                completed_ = here;
                start_frame_ = frame;
                flipped_ = false;
            } else {
                completed_ = -1;
            }
        }
        move(*e, frame);
        return;
    }
    // The prefix ends here: a phrase if it is complete and the next token does not continue its last word.
    if (here >= 0 && !graph_->continues_word(token))
        fired_.push_back(here);
    else
        fail(frame);
    reset();
    step_from_root(token, frame);
}

void PhraseBoost::finish(int end) {
    end += offset_;
    if (node_ == PhraseGraph::kRoot) return;
    const int here = graph_->node(node_).phrase;
    if (here >= 0)
        fired_.push_back(here);
    else
        fail(end);
    reset();
}

}  // namespace parakeet
