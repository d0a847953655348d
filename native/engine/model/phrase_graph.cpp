#include "phrase_graph.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "sentencepiece_model.h"

namespace parakeet {
namespace {

const std::string kWordMark = "\xE2\x96\x81";  // ▁ U+2581
constexpr size_t kSegmentationsPerWord = 3;    // alternatives kept per word
constexpr size_t kSequencesPerVariant = 8;     // products of word segmentations kept per spelling

std::vector<std::string> split_words(const std::string & text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    std::string w;
    while (in >> w) words.push_back(w);
    return words;
}

std::string join(const std::vector<std::string> & words) {
    std::string out;
    for (const std::string & w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string ascii_lower(std::string s) {
    for (char & c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string capitalized(std::string s) {
    if (!s.empty()) s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

/** The spellings tried: as typed, lower case, and each word capitalized (the casings a SentencePiece vocabulary holds). */
std::vector<std::vector<std::string>> case_variants(const std::vector<std::string> & words) {
    std::vector<std::vector<std::string>> out{words};
    std::vector<std::string> lower, caps;
    for (const std::string & w : words) {
        lower.push_back(ascii_lower(w));
        caps.push_back(capitalized(ascii_lower(w)));
    }
    for (auto * v : {&lower, &caps}) {
        if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    }
    return out;
}

/** The first of `needles` (lower-case word sequences) found inside `words` (case-insensitive), or "". */
std::string never_boosted_part(const std::vector<std::string> & words, const std::vector<std::vector<std::string>> & needles) {
    std::vector<std::string> lower;
    for (const std::string & w : words) lower.push_back(ascii_lower(w));
    for (const std::vector<std::string> & needle : needles) {
        if (needle.empty() || needle.size() > lower.size()) continue;
        if (std::search(lower.begin(), lower.end(), needle.begin(), needle.end()) != lower.end()) return join(needle);
    }
    return "";
}

/** Why a word cannot be spelled: the first character no piece covers. */
std::string unspellable_reason(const std::string & word, const std::unordered_map<std::string, int> & piece_ids) {
    for (size_t i = 0; i < word.size();) {
        size_t len = 1;
        const unsigned char c = static_cast<unsigned char>(word[i]);
        if (c >= 0xF0)
            len = 4;
        else if (c >= 0xE0)
            len = 3;
        else if (c >= 0xC0)
            len = 2;
        const std::string ch = word.substr(i, len);
        bool covered = false;
        for (const auto & [piece, id] : piece_ids) {
            if (piece.find(ch) != std::string::npos) {
                covered = true;
                break;
            }
        }
        if (!covered) return "the character '" + ch + "' is not in the model's vocabulary";
        i += len;
    }
    return "the model's pieces cannot spell the word '" + word +
           "' (its pieces would have to start with a bare word boundary, which is never boosted)";
}

/** The one segmentation the file's SentencePiece model gives the word, as the model's ids; none when a piece is missing. */
std::vector<std::vector<int>> exact_segmentation(const SentencePieceModel & spm, const std::string & marked_word,
                                                 const std::unordered_map<std::string, int> & piece_ids) {
    std::vector<int> ids;
    for (const std::string & piece : spm.encode_word(marked_word)) {
        const auto it = piece_ids.find(piece);
        if (it == piece_ids.end()) return {};  // the tokenizer and the model's piece list disagree: not boostable
        ids.push_back(it->second);
    }
    if (ids.empty()) return {};
    return {ids};
}

}  // namespace

const PhraseGraph * VocabularyCache::get(const std::vector<std::string> & pieces, const std::vector<VocabularyPhrase> & phrases,
                                         const std::vector<std::string> & never_boost, std::vector<RejectedPhrase> & rejected,
                                         const SentencePieceModel * exact) {
    const bool same = filled_ && never_boost == never_boost_ &&
                      std::equal(phrases.begin(), phrases.end(), phrases_.begin(), phrases_.end(),
                                 [](const VocabularyPhrase & a, const VocabularyPhrase & b) { return a.text == b.text && a.weight == b.weight; });
    if (!same) {
        std::vector<RejectedPhrase> fresh;
        PhraseGraph graph = PhraseGraph::compile(pieces, phrases, never_boost, fresh, exact);  // throws before the cache changes
        graph_ = graph.empty() ? nullptr : std::make_unique<PhraseGraph>(std::move(graph));
        rejected_ = std::move(fresh);
        phrases_ = phrases;
        never_boost_ = never_boost;
        filled_ = true;
    }
    rejected.insert(rejected.end(), rejected_.begin(), rejected_.end());
    return graph_.get();
}

std::vector<std::vector<int>> segment_word(const std::string & marked_word, const std::unordered_map<std::string, int> & piece_ids,
                                           size_t longest_piece, size_t limit) {
    std::vector<std::vector<int>> found;
    std::vector<int> path;
    size_t budget = 4096;  // search steps: long words with many short pieces stay cheap
    // Depth-first, longest piece first: the first result is the greedy longest match.
    auto search = [&](auto & self, size_t pos) -> void {
        if (found.size() >= limit * 4 || budget == 0) return;
        --budget;
        if (pos == marked_word.size()) {
            found.push_back(path);
            return;
        }
        for (size_t len = std::min(longest_piece, marked_word.size() - pos); len >= 1; --len) {
            const auto it = piece_ids.find(marked_word.substr(pos, len));
            if (it == piece_ids.end()) continue;
            path.push_back(it->second);
            self(self, pos + len);
            path.pop_back();
        }
    };
    search(search, 0);
    std::stable_sort(found.begin(), found.end(), [](const auto & a, const auto & b) { return a.size() < b.size(); });
    if (found.size() > limit) found.resize(limit);
    return found;
}

PhraseGraph::PhraseGraph() : nodes_(1) {}

const PhraseEdge * PhraseGraph::edge(int node, int token) const {
    const std::vector<PhraseEdge> & edges = nodes_[size_t(node)].edges;
    const auto it = std::lower_bound(edges.begin(), edges.end(), token, [](const PhraseEdge & e, int t) { return e.token < t; });
    return it != edges.end() && it->token == token ? &*it : nullptr;
}

void PhraseGraph::insert(const std::vector<int> & tokens, float token_bonus, int phrase) {
    int node = kRoot;
    for (int token : tokens) {
        const PhraseEdge * found = edge(node, token);
        if (found == nullptr) {
            const int child = int(nodes_.size());
            nodes_.emplace_back();
            std::vector<PhraseEdge> & edges = nodes_[size_t(node)].edges;
            const auto at = std::lower_bound(edges.begin(), edges.end(), token, [](const PhraseEdge & e, int t) { return e.token < t; });
            edges.insert(at, PhraseEdge{token, child, token_bonus});
            node = child;
        } else {
            const_cast<PhraseEdge *>(found)->bonus = std::max(found->bonus, token_bonus);
            node = found->child;
        }
    }
    if (nodes_[size_t(node)].phrase < 0) nodes_[size_t(node)].phrase = phrase;
}

std::vector<std::vector<int>> PhraseGraph::sequences(int phrase) const {
    std::vector<std::vector<int>> out;
    std::vector<int> path;
    auto walk = [&](auto & self, int node) -> void {
        if (nodes_[size_t(node)].phrase == phrase) out.push_back(path);
        for (const PhraseEdge & e : nodes_[size_t(node)].edges) {
            path.push_back(e.token);
            self(self, e.child);
            path.pop_back();
        }
    };
    walk(walk, kRoot);
    return out;
}

PhraseGraph PhraseGraph::compile(const std::vector<std::string> & pieces, const std::vector<VocabularyPhrase> & phrases,
                                 const std::vector<std::string> & never_boost, std::vector<RejectedPhrase> & rejected,
                                 const SentencePieceModel * exact) {
    if (phrases.size() > kMaxVocabularyPhrases) {
        throw Error(ErrorCode::BadArgument, "the vocabulary has " + std::to_string(phrases.size()) + " phrases; at most " +
                                                    std::to_string(kMaxVocabularyPhrases) + " are supported: remove the ones you need least");
    }
    PhraseGraph graph;
    std::unordered_map<std::string, int> piece_ids;
    size_t longest = 1;
    graph.starts_word_.assign(pieces.size(), false);
    graph.continues_word_.assign(pieces.size(), false);
    for (size_t i = 0; i < pieces.size(); ++i) {
        const std::string & p = pieces[i];
        if (p.empty() || (p.size() >= 2 && p.front() == '<' && p.back() == '>')) continue;  // <unk>, controls, byte pieces
        piece_ids.emplace(p, int(i));
        longest = std::max(longest, p.size());
        graph.starts_word_[i] = p.compare(0, kWordMark.size(), kWordMark) == 0;
        const unsigned char first = static_cast<unsigned char>(p[0]);
        graph.continues_word_[i] = !graph.starts_word_[i] && (first >= 0x80 || std::isalnum(first) != 0);
    }
    std::vector<std::vector<std::string>> never_needles;
    for (const std::string & entry : never_boost) never_needles.push_back(split_words(ascii_lower(entry)));
    const auto bare_mark = piece_ids.find(kWordMark);
    const int bare_mark_id = bare_mark == piece_ids.end() ? -1 : bare_mark->second;

    for (const VocabularyPhrase & p : phrases) {
        if (!(std::isfinite(p.weight) && p.weight > 0.0f)) {
            throw Error(ErrorCode::BadArgument, "the weight of the vocabulary phrase '" + p.text + "' is " + std::to_string(p.weight) +
                                                        "; weights must be positive numbers (1 = the default bonus)");
        }
        const std::vector<std::string> words = split_words(p.text);
        if (words.empty()) {
            rejected.push_back({p.text, "the phrase is empty"});
            continue;
        }
        if (const std::string part = never_boosted_part(words, never_needles); !part.empty()) {
            rejected.push_back({p.text, "it holds the spoken command '" + part + "', which is never boosted (it would replace ordinary words)"});
            continue;
        }
        const int index = int(graph.phrase_texts_.size());
        const float token_bonus = std::min(PhraseBonus::kMaxPerToken, PhraseBonus::kPerToken * p.weight);
        bool any = false;
        std::string reason;
        for (const std::vector<std::string> & spelling : case_variants(words)) {
            std::vector<std::vector<std::vector<int>>> per_word;
            for (size_t w = 0; w < spelling.size(); ++w) {
                std::vector<std::vector<int>> options =
                        exact != nullptr ? exact_segmentation(*exact, kWordMark + spelling[w], piece_ids)
                                         : segment_word(kWordMark + spelling[w], piece_ids, longest, kSegmentationsPerWord * 2);
                // Guard: a phrase never begins with a bare word-boundary piece: boosting "▁" alone
                // makes the decoder emit it again and again (a repetition loop).
                if (w == 0) {
                    options.erase(
                            std::remove_if(options.begin(), options.end(), [&](const std::vector<int> & s) { return s.front() == bare_mark_id; }),
                            options.end());
                }
                if (options.size() > kSegmentationsPerWord) options.resize(kSegmentationsPerWord);
                if (options.empty()) {
                    if (reason.empty()) reason = unspellable_reason(spelling[w], piece_ids);
                    per_word.clear();
                    break;
                }
                per_word.push_back(std::move(options));
            }
            if (per_word.size() != spelling.size()) continue;
            // The products of the words' segmentations, first choices first, at most kSequencesPerVariant.
            std::vector<size_t> pick(per_word.size(), 0);
            for (size_t made = 0; made < kSequencesPerVariant; ++made) {
                std::vector<int> tokens;
                for (size_t w = 0; w < per_word.size(); ++w) tokens.insert(tokens.end(), per_word[w][pick[w]].begin(), per_word[w][pick[w]].end());
                graph.insert(tokens, token_bonus, index);
                any = true;
                size_t w = per_word.size();
                while (w > 0 && ++pick[w - 1] == per_word[w - 1].size()) pick[--w] = 0;
                if (w == 0) break;
            }
        }
        if (!any) {
            rejected.push_back({p.text, reason.empty() ? "the model's pieces cannot spell it" : reason});
            continue;
        }
        graph.phrase_texts_.push_back(join(words));
    }
    return graph;
}

}  // namespace parakeet
