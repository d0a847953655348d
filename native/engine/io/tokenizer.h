// SentencePiece pieces -> text, words and timestamps (spec §1.4, §4.6).
#pragma once

#include <string>
#include <vector>

#include "greedy.h"
#include "parakeet/parakeet.h"

namespace parakeet {

class Detokenizer {
public:
    explicit Detokenizer(const std::vector<std::string> & pieces);

    /** SentencePiece decode_ids as NeMo uses it: controls dropped, <unk> as " ⁇ ", ▁ -> space, one leading space removed. */
    std::string text(const std::vector<DecodedToken> & tokens) const;

    /**
     * Tokens and words with times (NeMo get_words_offsets + _refine_timestamps):
     * a ▁-piece starts a word, punctuation is glued to the previous word and
     * pinned to its end. `offset_sec` shifts everything (long-audio windows).
     */
    void timestamps(const std::vector<DecodedToken> & tokens, double frame_sec, double offset_sec, std::vector<Token> & out_tokens,
                    std::vector<Word> & out_words) const;

    /** The text a piece contributes (empty for dropped pieces). */
    const std::string & rendered(int id) const { return rendered_[size_t(id)]; }

private:
    std::vector<std::string> pieces_;
    std::vector<std::string> rendered_;  // piece text with ▁ kept
    std::vector<bool> starts_word_;
    std::vector<bool> punctuation_;
    std::vector<bool> dropped_;
};

}  // namespace parakeet
