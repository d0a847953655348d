// Custom vocabulary (phrase_graph.h, phrase_boost.h): how phrases become token
// sequences, and what the bonus may and may not change in the greedy decoders.
// Each guard has a case that fails without it.
#include <algorithm>
#include <string>
#include <vector>

#include "check.h"
#include "greedy.h"
#include "identity_transducer.h"
#include "phrase_boost.h"
#include "phrase_graph.h"

using namespace parakeet;
using parakeet_tests::IdentityTransducer;
using parakeet_tests::one_hot_rows;

namespace {

// Ids:                                      0        1         2          3          4         5      6    7     8       9    10     11     12
const std::vector<std::string> kPieces = {"<unk>", "▁one", "▁two", "▁three", "▁four", "▁", "X", "yz", "▁Ab", "c", "▁A", "bc", "▁comma"};
const int kClasses = 14, kBlank = 13;
const int kOne = 1, kTwo = 2, kThree = 3, kFour = 4;

PhraseGraph compile(const std::vector<VocabularyPhrase> & phrases, std::vector<RejectedPhrase> & rejected,
                    const std::vector<std::string> & never_boost = {}) {
    return PhraseGraph::compile(kPieces, phrases, never_boost, rejected);
}

/** One CTC row: every class at 0 but the given ones. */
std::vector<float> row(std::vector<std::pair<int, float>> values) {
    std::vector<float> r(size_t(kClasses), 0.0f);
    for (const auto & [k, v] : values) r[size_t(k)] = v;
    return r;
}

std::vector<float> rows(const std::vector<std::vector<float>> & frames) {
    std::vector<float> out;
    for (const auto & f : frames) out.insert(out.end(), f.begin(), f.end());
    return out;
}

std::vector<int> ids(const std::vector<DecodedToken> & tokens) {
    std::vector<int> out;
    for (const DecodedToken & t : tokens) out.push_back(t.id);
    return out;
}

std::vector<int> ctc_with(const PhraseGraph & graph, const std::vector<float> & logits, std::vector<int> & fired) {
    const int frames = int(logits.size()) / kClasses;
    return ids(decode_with_phrases(
            graph, kBlank, [&](PhraseBoost * b) { return ctc_greedy(logits, kClasses, frames, kBlank, b); }, fired));
}

const std::vector<float> kBlankRow = row({{kBlank, 5}});

}  // namespace

TEST(vocabulary_phrase_holds_every_plausible_segmentation) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"Abc", 1}}, rejected);
    CHECK(rejected.empty());
    const std::vector<std::vector<int>> seqs = g.sequences(0);
    CHECK_EQ(seqs.size(), size_t(2));  // ▁Ab c and ▁A bc: without scores either may be the model's
    CHECK((std::find(seqs.begin(), seqs.end(), std::vector<int>{8, 9}) != seqs.end()));
    CHECK((std::find(seqs.begin(), seqs.end(), std::vector<int>{10, 11}) != seqs.end()));
}

TEST(vocabulary_phrase_takes_the_casing_the_vocabulary_has) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"ONE  Two", 1}}, rejected);
    CHECK(rejected.empty());
    CHECK_EQ(g.phrase_text(0), std::string("ONE Two"));
    CHECK((g.sequences(0) == std::vector<std::vector<int>>{{kOne, kTwo}}));
}

TEST(vocabulary_guard_no_phrase_begins_with_a_bare_word_boundary) {
    // "Xyz" spells only as ▁ X yz: boosting a leading bare ▁ loops, so the phrase is refused.
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"Xyz", 1}, {"one Xyz", 1}}, rejected);
    CHECK_EQ(rejected.size(), size_t(1));
    CHECK_EQ(rejected[0].phrase, std::string("Xyz"));
    CHECK(rejected[0].reason.find("bare word boundary") != std::string::npos);
    CHECK(g.edge(PhraseGraph::kRoot, 5) == nullptr);
    // Inside a phrase a bare ▁ is how SentencePiece writes such a word: kept.
    CHECK((g.sequences(0) == std::vector<std::vector<int>>{{kOne, 5, 6, 7}}));
}

TEST(vocabulary_reports_characters_outside_the_vocabulary) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"one q", 1}}, rejected);
    CHECK(g.empty());
    CHECK_EQ(rejected.size(), size_t(1));
    CHECK(rejected[0].reason.find("'q' is not in the model's vocabulary") != std::string::npos);
}

TEST(vocabulary_guard_spoken_punctuation_is_never_boosted) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"one Comma", 1}, {"comma", 1}, {"two", 1}}, rejected, {"comma", "new line"});
    CHECK_EQ(rejected.size(), size_t(2));
    CHECK(rejected[0].reason.find("spoken command 'comma'") != std::string::npos);
    CHECK(g.edge(PhraseGraph::kRoot, 12) == nullptr);
    CHECK(g.edge(PhraseGraph::kRoot, kTwo) != nullptr);
}

TEST(vocabulary_guard_at_most_1000_phrases) {
    std::vector<VocabularyPhrase> phrases(kMaxVocabularyPhrases + 1, VocabularyPhrase{"one", 1});
    std::vector<RejectedPhrase> rejected;
    std::string message;
    try {
        compile(phrases, rejected);
    } catch (const Error & e) {
        message = e.code() == ErrorCode::BadArgument ? e.what() : "";
    }
    CHECK(message.find("1001 phrases; at most 1000") != std::string::npos);
    phrases.pop_back();
    CHECK(!compile(phrases, rejected).empty());
}

TEST(vocabulary_weight_must_be_positive) {
    std::vector<RejectedPhrase> rejected;
    bool threw = false;
    try {
        compile({{"one", -1}}, rejected);
    } catch (const Error & e) {
        threw = e.code() == ErrorCode::BadArgument && std::string(e.what()).find("'one'") != std::string::npos;
    }
    CHECK(threw);
}

TEST(ctc_boost_turns_a_close_runner_up_into_the_phrase_and_reports_it) {
    // one _ four(5)/two(4) _ : "one four" plainly; "one two" is within the bonus.
    const std::vector<float> logits = rows({row({{kOne, 5}}), kBlankRow, row({{kFour, 5}, {kTwo, 4}}), kBlankRow});
    std::vector<RejectedPhrase> rejected;
    std::vector<int> fired;
    CHECK(ids(ctc_greedy(logits, kClasses, 4, kBlank)) == (std::vector<int>{kOne, kFour}));
    CHECK(ctc_with(compile({{"one two", 1}}, rejected), logits, fired) == (std::vector<int>{kOne, kTwo}));
    CHECK(fired == std::vector<int>{0});
}

TEST(vocabulary_guard_bonus_is_bounded_per_token) {
    // The phrase start trails by a nat more than kMaxPerToken; a weight of 100 may not buy that (though the
    // phrase's budget, kMaxPerPhrase, would allow it).
    static_assert(PhraseBonus::kMaxPerToken + 1 < PhraseBonus::kMaxPerPhrase, "the case needs room in the phrase budget");
    const std::vector<float> logits = rows({row({{kFour, PhraseBonus::kMaxPerToken + 1}}), row({{kTwo, 5}}), kBlankRow});
    std::vector<RejectedPhrase> rejected;
    std::vector<int> fired;
    CHECK(ctc_with(compile({{"one two", 100}}, rejected), logits, fired) == (std::vector<int>{kFour, kTwo}));
    CHECK(fired.empty());
}

TEST(vocabulary_guard_bonus_is_bounded_per_phrase) {
    // Weight 1: 4 nats a token, but 12 along a prefix: one two three use them up, the fourth token gets
    // nothing, so a runner-up one nat behind stays behind.
    static_assert(3 * PhraseBonus::kPerToken >= PhraseBonus::kMaxPerPhrase, "three tokens use the budget up");
    const std::vector<float> logits = rows({row({{kOne, 5}}), row({{kTwo, 5}}), row({{kThree, 5}}), row({{kFour, 5}, {kOne, 4}}), kBlankRow});
    std::vector<RejectedPhrase> rejected;
    std::vector<int> fired;
    CHECK(ctc_with(compile({{"one two three one", 1}}, rejected), logits, fired) == (std::vector<int>{kOne, kTwo, kThree, kFour}));
    CHECK(fired.empty());
}

TEST(vocabulary_backoff_gives_back_what_a_failed_prefix_bought) {
    // The bonus turns four into two (one two …), then three never comes: the prefix fails, and the
    // decisions it bought are undone: the plain "one four four" comes back, and nothing fired.
    const std::vector<float> logits = rows({row({{kOne, 5}}), kBlankRow, row({{kFour, 5}, {kTwo, 4}}), kBlankRow, row({{kFour, 5}}), kBlankRow});
    std::vector<RejectedPhrase> rejected;
    std::vector<int> fired;
    const PhraseGraph g = compile({{"one two three", 1}}, rejected);
    CHECK(ctc_with(g, logits, fired) == (std::vector<int>{kOne, kFour, kFour}));
    CHECK(fired.empty());
    // A prefix cut off by the end of the window gives back too.
    const std::vector<float> cut = rows({row({{kOne, 5}}), kBlankRow, row({{kFour, 5}, {kTwo, 4}})});
    CHECK(ctc_with(g, cut, fired) == (std::vector<int>{kOne, kFour}));
}

TEST(vocabulary_guard_blank_decision_never_becomes_a_phrase) {
    // RNNT: after "▁A", blank wins by half a nat on every frame (silence, noise) while the phrase's next
    // piece "bc" and another phrase's start "one" are close: neither may be emitted.
    IdentityTransducer t(13, {});
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = PhraseGraph::compile(kPieces, {{"Abc", 4}, {"one two", 4}}, {}, rejected);
    std::vector<float> f;
    for (int i = 0; i < 4; ++i) {
        std::vector<float> r(size_t(t.outputs()), 0.0f);
        r[size_t(i == 0 ? 10 : kBlank)] = 5.0f;
        r[size_t(11)] = 4.5f;
        r[size_t(kOne)] = 4.5f;
        f.insert(f.end(), r.begin(), r.end());
    }
    std::vector<int> fired;
    const std::vector<DecodedToken> tokens = decode_with_phrases(
            g, kBlank, [&](PhraseBoost * b) { return rnnt_greedy(*t.model, f, t.outputs(), 4, kBlank, 1, nullptr, b); }, fired);
    CHECK(ids(tokens) == std::vector<int>{10});
    CHECK(fired.empty());
}

TEST(vocabulary_tdt_boost_leaves_durations_to_the_model) {
    // Vocabulary 13 tokens, durations {0, 1, 2}. Frame 0: one (d1); frame 1: four(5)/two(4) with d2; frame 3: blank.
    IdentityTransducer t(13, {0, 1, 2});
    const int outputs = t.outputs();
    std::vector<float> f(size_t(outputs * 4), 0.0f);
    auto at = [&](int frame, int k) -> float & { return f[size_t(frame * outputs + k)]; };
    at(0, kOne) = 5;
    at(0, kBlank + 1 + 1) = 5;  // duration 1
    at(1, kFour) = 5;
    at(1, kTwo) = 4;
    at(1, kBlank + 1 + 2) = 5;  // duration 2
    at(3, kBlank) = 5;
    at(3, kBlank + 1 + 1) = 5;
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = PhraseGraph::compile(kPieces, {{"one two", 1}}, {}, rejected);
    for (TdtRule rule : {TdtRule::GreedyBatch, TdtRule::Greedy}) {
        const std::vector<DecodedToken> plain = tdt_greedy(*t.model, f, outputs, 4, kBlank, t.hp.durations, 2, rule, nullptr);
        std::vector<int> fired;
        const std::vector<DecodedToken> boosted = decode_with_phrases(
                g, kBlank, [&](PhraseBoost * b) { return tdt_greedy(*t.model, f, outputs, 4, kBlank, t.hp.durations, 2, rule, nullptr, b); }, fired);
        CHECK(ids(plain) == (std::vector<int>{kOne, kFour}));
        CHECK(ids(boosted) == (std::vector<int>{kOne, kTwo}));
        CHECK_EQ(boosted.size(), plain.size());
        for (size_t i = 0; i < std::min(plain.size(), boosted.size()); ++i) {
            CHECK_EQ(boosted[i].frame, plain[i].frame);
            CHECK_EQ(boosted[i].duration, plain[i].duration);
        }
        CHECK(fired == std::vector<int>{0});
    }
}

namespace {

/** RNNT rows (the identity joint's outputs) for one chunk: `winners[i]` = {token, logit} pairs of frame i. */
std::vector<float> transducer_rows(int outputs, const std::vector<std::vector<std::pair<int, float>>> & frames) {
    std::vector<float> out;
    for (const auto & frame : frames) {
        std::vector<float> r(size_t(outputs), 0.0f);
        for (const auto & [k, v] : frame) r[size_t(k)] = v;
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

/**
 * A stream as stream_state.cpp decodes it: chunk after chunk, the prediction state and the phrase state
 * carried, each chunk through decode_chunk_with_phrases. Returns each chunk's tokens and fired phrases.
 */
std::vector<std::vector<int>> stream_chunks(const PhraseGraph & g, const std::vector<std::vector<std::vector<std::pair<int, float>>>> & chunks,
                                            std::vector<std::vector<int>> & fired) {
    IdentityTransducer t(13, {});
    PredictionState state = t.model->initial_state();
    PhraseBoost carried(g, kBlank, {});
    std::vector<std::vector<int>> out;
    int first = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
        const std::vector<float> f = transducer_rows(t.outputs(), chunks[c]);
        const int frames = int(chunks[c].size());
        const PredictionState before = state;
        carried.set_frame_offset(first);
        auto pass = [&](PhraseBoost * b) {
            state = before;
            std::vector<DecodedToken> tokens = rnnt_greedy_continue(*t.model, f, t.outputs(), frames, kBlank, 1, state, nullptr, b);
            if (c + 1 == chunks.size()) b->finish(frames);
            return tokens;
        };
        std::vector<int> chunk_fired;
        out.push_back(ids(decode_chunk_with_phrases(carried, first, frames, pass, chunk_fired)));
        fired.push_back(chunk_fired);
        first += frames;
    }
    return out;
}

}  // namespace

TEST(stream_vocabulary_phrase_state_carries_across_chunks) {
    // "one" | "two" | four(5)/three(4): the prefix the model's own tokens matched in the first two chunks
    // is carried, and the chunk that can complete the phrase buys its last token and reports it.
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"one two three", 1}}, rejected);
    std::vector<std::vector<int>> fired;
    const auto chunks = stream_chunks(g, {{{{kOne, 5}}}, {{{kTwo, 5}}}, {{{kFour, 5}, {kThree, 4}}}}, fired);
    CHECK((chunks == std::vector<std::vector<int>>{{kOne}, {kTwo}, {kThree}}));
    CHECK((fired == std::vector<std::vector<int>>{{}, {}, {0}}));
}

TEST(stream_vocabulary_commits_a_bought_token_only_inside_a_phrase_its_chunk_completes) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"one two three", 1}}, rejected);
    std::vector<std::vector<int>> fired;
    // The prefix fails inside the chunk that bought "two": the chunk is decoded again, unboosted.
    const auto same_chunk = stream_chunks(g, {{{{kOne, 5}}}, {{{kFour, 5}, {kTwo, 4}}, {{kBlank, 5}}, {{kFour, 5}}}}, fired);
    CHECK((same_chunk == std::vector<std::vector<int>>{{kOne}, {kFour, kFour}}));
    // The chunk ends inside the prefix that bought "two": once returned it could never be taken back, so the
    // purchase is given back before the chunk is returned (the next chunk cannot complete the phrase then).
    fired.clear();
    const auto open = stream_chunks(g, {{{{kOne, 5}}}, {{{kFour, 5}, {kTwo, 4}}}, {{{kThree, 5}}}}, fired);
    CHECK((open == std::vector<std::vector<int>>{{kOne}, {kFour}, {kThree}}));
    CHECK((fired == std::vector<std::vector<int>>{{}, {}, {}}));
}

TEST(vocabulary_guard_no_bonus_where_the_vad_heard_no_speech) {
    // The runner-up "two" at frame 2 would be bought (ctc_boost_turns_a_close_runner_up…); with frame 2
    // marked non-speech from the first pass on, the model's "four" stays and nothing fires.
    const std::vector<float> logits = rows({row({{kOne, 5}}), kBlankRow, row({{kFour, 5}, {kTwo, 4}}), kBlankRow});
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph g = compile({{"one two", 1}}, rejected);
    std::vector<int> fired;
    const std::vector<DecodedToken> gated =
            decode_with_phrases(g, kBlank, [&](PhraseBoost * b) { return ctc_greedy(logits, kClasses, 4, kBlank, b); }, fired, {FrameSpan{2, 3}});
    CHECK(ids(gated) == (std::vector<int>{kOne, kFour}));
    CHECK(fired.empty());
    // Speech there: bought as before.
    CHECK(ctc_with(g, logits, fired) == (std::vector<int>{kOne, kTwo}));
}
