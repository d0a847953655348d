// The greedy decoder loops (greedy.h) on tiny hand-made logits. The
// transducer's prediction network is all zeros and its joint is the identity,
// so the joint's logits are the encoder projections themselves (through ReLU)
// whatever the state: each case says which token and duration wins on which
// frame, and what NeMo's loops then emit.
#include <vector>

#include "check.h"
#include "greedy.h"
#include "identity_transducer.h"

using namespace parakeet;
using parakeet_tests::IdentityTransducer;
using parakeet_tests::one_hot_rows;

TEST(ctc_greedy_collapses_repeats_drops_blanks_and_stops_at_valid) {
    // 3 tokens + blank (3). Frames: 0 0 _ 0 1 1 _ | 2 (the last is past the valid length).
    const int classes = 4, blank = 3;
    const std::vector<float> logits = one_hot_rows({{0}, {0}, {3}, {0}, {1}, {1}, {3}, {2}}, classes);
    const std::vector<DecodedToken> tokens = ctc_greedy(logits, classes, 7, blank);
    CHECK_EQ(tokens.size(), size_t(3));
    if (tokens.size() != 3) return;
    CHECK_EQ(tokens[0].id, 0);
    CHECK_EQ(tokens[0].frame, 0);
    CHECK_EQ(tokens[0].duration, 3);  // up to the next token
    CHECK_EQ(tokens[1].id, 0);        // the blank between separates two 0s
    CHECK_EQ(tokens[1].frame, 3);
    CHECK_EQ(tokens[2].id, 1);
    CHECK_EQ(tokens[2].frame, 4);
    CHECK_EQ(tokens[2].duration, 1);  // the last spans one frame
    for (const DecodedToken & t : tokens) CHECK(t.confidence > 0.0f && t.confidence <= 1.0f);
}

TEST(ctc_greedy_ties_go_to_the_lowest_class) {
    const std::vector<float> logits = one_hot_rows({{1, 2}, {3}}, 4);
    const std::vector<DecodedToken> tokens = ctc_greedy(logits, 4, 2, 3);
    CHECK_EQ(tokens.size(), size_t(1));
    if (!tokens.empty()) CHECK_EQ(tokens[0].id, 1);
}

TEST(ctc_greedy_all_blank_is_empty) { CHECK(ctc_greedy(one_hot_rows({{3}, {3}, {3}}, 4), 4, 3, 3).empty()); }

TEST(rnnt_greedy_emits_up_to_max_symbols_per_frame) {
    // Vocabulary 2, blank 2. Frames: 0 _ 1. The joint does not depend on the state, so a label frame
    // keeps winning until max_symbols moves the loop on.
    IdentityTransducer t(2, {});
    const std::vector<float> f = one_hot_rows({{0}, {2}, {1}}, t.outputs());
    const std::vector<DecodedToken> tokens = rnnt_greedy(*t.model, f, t.outputs(), 3, 2, 2, nullptr);
    const std::vector<int> ids = {0, 0, 1, 1}, frames = {0, 0, 2, 2};
    CHECK_EQ(tokens.size(), ids.size());
    for (size_t i = 0; i < std::min(tokens.size(), ids.size()); ++i) {
        CHECK_EQ(tokens[i].id, ids[i]);
        CHECK_EQ(tokens[i].frame, frames[i]);
    }
}

TEST(tdt_greedy_skips_by_duration_and_caps_zero_duration_labels) {
    // Vocabulary 2, blank 2, durations {0, 1, 2}: outputs [tok0, tok1, blank, d0, d1, d2].
    //   frame 0: token 0, duration 2  -> emit 0 at 0, jump to frame 2 (frame 1's token 1 is never seen)
    //   frame 2: blank, duration 0    -> a blank always advances at least one frame
    //   frame 3: token 1, duration 0  -> emitted max_symbols (2) times on frame 3, then one frame forward
    //   frame 4: past the valid length (token 0 would win)
    IdentityTransducer t(2, {0, 1, 2});
    const std::vector<float> f = one_hot_rows({{0, 5}, {1, 4}, {2, 3}, {1, 3}, {0, 4}}, t.outputs());
    for (TdtRule rule : {TdtRule::GreedyBatch, TdtRule::Greedy}) {
        const std::vector<DecodedToken> tokens = tdt_greedy(*t.model, f, t.outputs(), 4, 2, t.hp.durations, 2, rule, nullptr);
        const std::vector<int> ids = {0, 1, 1}, frames = {0, 3, 3}, durations = {2, 0, 0};
        CHECK_EQ(tokens.size(), ids.size());
        for (size_t i = 0; i < std::min(tokens.size(), ids.size()); ++i) {
            CHECK_EQ(tokens[i].id, ids[i]);
            CHECK_EQ(tokens[i].frame, frames[i]);
            CHECK_EQ(tokens[i].duration, durations[i]);
        }
    }
}

TEST(tdt_greedy_zero_duration_label_with_max_symbols_one_advances) {
    // One frame: token 0 with duration 0, max_symbols 1. Both rules emit it once and move on.
    IdentityTransducer t(2, {0, 1});
    const std::vector<float> f = one_hot_rows({{0, 3}}, t.outputs());
    for (TdtRule rule : {TdtRule::GreedyBatch, TdtRule::Greedy}) {
        const std::vector<DecodedToken> tokens = tdt_greedy(*t.model, f, t.outputs(), 1, 2, t.hp.durations, 1, rule, nullptr);
        CHECK_EQ(tokens.size(), size_t(1));
    }
}

TEST(greedy_decoders_stop_when_aborted) {
    IdentityTransducer t(2, {0, 1, 2});
    const std::vector<float> f = one_hot_rows({{0, 4}, {1, 4}}, t.outputs());
    const std::atomic<bool> abort{true};
    bool threw = false;
    try {
        tdt_greedy(*t.model, f, t.outputs(), 2, 2, t.hp.durations, 2, TdtRule::GreedyBatch, &abort);
    } catch (const Error & e) {
        threw = e.code() == ErrorCode::Aborted;
    }
    CHECK(threw);
}
