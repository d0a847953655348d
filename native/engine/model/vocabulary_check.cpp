// Model::check_vocabulary: the custom vocabulary compiled as a transcription compiles it
// (phrase_graph.h), reported per phrase for Settings (usable or why not, and the pieces).
#include <algorithm>
#include <cstddef>

#include "model_impl.h"

namespace parakeet {

std::vector<PhraseCheck> Model::check_vocabulary(const std::vector<VocabularyPhrase> & phrases, const std::vector<std::string> & never_boost) const {
    const Model::Impl & m = *impl_;
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph graph = PhraseGraph::compile(m.hp.pieces, phrases, never_boost, rejected, m.sentencepiece.get());
    // compile() rejects phrases in order and numbers the others in order: walk both together.
    std::vector<PhraseCheck> out;
    size_t next_rejected = 0;
    int next_used = 0;
    for (const VocabularyPhrase & p : phrases) {
        PhraseCheck check;
        check.phrase = p.text;
        check.exact = m.sentencepiece != nullptr;
        if (next_rejected < rejected.size() && rejected[next_rejected].phrase == p.text) {
            check.reason = rejected[next_rejected++].reason;
        } else {
            for (const std::vector<int> & ids : graph.sequences(next_used++)) {
                std::vector<std::string> pieces;
                for (int id : ids) pieces.push_back(m.hp.pieces[size_t(id)]);
                check.spellings.push_back(std::move(pieces));
            }
            // Fewest pieces first: the longest match leads, as compile() tried it first.
            std::stable_sort(check.spellings.begin(), check.spellings.end(), [](const auto & a, const auto & b) { return a.size() < b.size(); });
        }
        out.push_back(std::move(check));
    }
    return out;
}

}  // namespace parakeet
