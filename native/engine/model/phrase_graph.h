// Custom vocabulary: the user's phrases compiled into a prefix tree over the
// model's token ids (a context graph in the sense of NeMo's GPU-PB / k2's
// ContextGraph, without their failure arcs: greedy decoding backs off to the
// root instead, phrase_boost.h). Each edge carries the bonus (in nats) a token
// earns when it extends a live prefix.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {

class SentencePieceModel;  // sentencepiece_model.h

/**
 * Bonus bounds (nats of log-probability; logits differ from log-probs by a per-step constant, so they add to
 * logits). Weight 1's 4 nats: on the noisy digits set of `npm run bench:vocabulary`, 2 nats raised phrase
 * recall 65 → 70 %, 4 nats to 77.5 %, both with the near-miss false-phrase rate and the WER unchanged.
 */
struct PhraseBonus {
    static constexpr float kPerToken = 4.0f;       // weight 1
    static constexpr float kMaxPerToken = 6.0f;    // whatever the weight
    static constexpr float kMaxPerPhrase = 12.0f;  // summed along one live prefix (phrase_boost.cpp clamps)
};

struct PhraseEdge {
    int token = 0;
    int child = 0;
    float bonus = 0;  // the largest of the phrases through this edge, each ≤ kMaxPerToken
};

struct PhraseNode {
    std::vector<PhraseEdge> edges;  // sorted by token
    int phrase = -1;                // a phrase ends here (index into PhraseGraph::phrase_text)
};

class PhraseGraph {
public:
    static constexpr int kRoot = 0;

    /**
     * Tokenizes each phrase with `pieces` (every plausible segmentation, case
     * variants included; with `exact`, the file's own SentencePiece model, the one
     * segmentation it gives each casing) and builds the tree. Phrases that cannot be
     * used go to `rejected` with the reason; more than kMaxVocabularyPhrases phrases
     * or a weight that is not a positive number throw Error(BadArgument).
     */
    static PhraseGraph compile(const std::vector<std::string> & pieces, const std::vector<VocabularyPhrase> & phrases,
                               const std::vector<std::string> & never_boost, std::vector<RejectedPhrase> & rejected,
                               const SentencePieceModel * exact = nullptr);

    bool empty() const { return nodes_[kRoot].edges.empty(); }
    const PhraseNode & node(int i) const { return nodes_[size_t(i)]; }
    /** The edge from `node` on `token`, or null. */
    const PhraseEdge * edge(int node, int token) const;
    const std::string & phrase_text(int i) const { return phrase_texts_[size_t(i)]; }
    /** The piece begins a word (▁…). */
    bool starts_word(int token) const { return token >= 0 && size_t(token) < starts_word_.size() && starts_word_[size_t(token)]; }
    /** The piece continues a word (letters or digits without ▁): a phrase followed by one is not a whole-word match. */
    bool continues_word(int token) const { return token >= 0 && size_t(token) < continues_word_.size() && continues_word_[size_t(token)]; }
    /** The token sequences `phrase` was compiled into (tests, diagnostics). */
    std::vector<std::vector<int>> sequences(int phrase) const;

private:
    PhraseGraph();
    void insert(const std::vector<int> & tokens, float token_bonus, int phrase);

    std::vector<PhraseNode> nodes_;
    std::vector<std::string> phrase_texts_;
    std::vector<bool> starts_word_;
    std::vector<bool> continues_word_;
};

/**
 * The last vocabulary a state compiled, kept: the app sends the same list with
 * every call (each dictation segment), and 1,000 phrases take longer to compile
 * than a short segment takes to decode.
 */
class VocabularyCache {
public:
    /** The graph for this vocabulary (null when nothing can be boosted); the rejected phrases are appended to `rejected`. */
    const PhraseGraph * get(const std::vector<std::string> & pieces, const std::vector<VocabularyPhrase> & phrases,
                            const std::vector<std::string> & never_boost, std::vector<RejectedPhrase> & rejected,
                            const SentencePieceModel * exact = nullptr);

private:
    std::vector<VocabularyPhrase> phrases_;
    std::vector<std::string> never_boost_;
    std::vector<RejectedPhrase> rejected_;
    std::unique_ptr<PhraseGraph> graph_;
    bool filled_ = false;
};

/**
 * Every plausible segmentation of one word ("▁" + word) into pieces, fewest
 * pieces first, at most `limit`: a longest-match depth-first search, bounded.
 * GGUFs carry no SentencePiece scores, so the model's own segmentation is one
 * of these, not known which.
 */
std::vector<std::vector<int>> segment_word(const std::string & marked_word, const std::unordered_map<std::string, int> & piece_ids,
                                           size_t longest_piece, size_t limit);

}  // namespace parakeet
