// The embedded SentencePiece model (sentencepiece_model.h): exact segmentation of a vocabulary
// phrase's words where the piece list alone allows several, for unigram and BPE models.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "phrase_graph.h"
#include "sentencepiece_model.h"

using namespace parakeet;

namespace {

void varint(std::string & out, uint64_t v) {
    for (; v > 0x7f; v >>= 7) out += char((v & 0x7f) | 0x80);
    out += char(v);
}

void bytes_field(std::string & out, int field, const std::string & body) {
    varint(out, uint64_t(field) << 3 | 2);
    varint(out, body.size());
    out += body;
}

struct Piece {
    std::string text;
    float score;
    int type = 1;  // NORMAL; 2 UNKNOWN, 3 CONTROL
};

/** A ModelProto: the pieces, then trainer_spec { model_type } (1 unigram, 2 BPE). */
std::string model_proto(const std::vector<Piece> & pieces, int model_type) {
    std::string out;
    for (const Piece & p : pieces) {
        std::string body;
        bytes_field(body, 1, p.text);
        body += char(2 << 3 | 5);
        uint32_t bits;
        std::memcpy(&bits, &p.score, 4);
        for (int i = 0; i < 4; ++i) body += char((bits >> (8 * i)) & 0xff);
        varint(body, 3 << 3 | 0);
        varint(body, uint64_t(p.type));
        bytes_field(out, 1, body);
    }
    std::string spec;
    varint(spec, 3 << 3 | 0);
    varint(spec, uint64_t(model_type));
    bytes_field(out, 2, spec);
    return out;
}

// The pieces of phrase_boost_tests' kPieces that spell "Abc" two ways, plus characters.
const std::vector<std::string> kPieces = {"<unk>", "▁Ab", "c", "▁A", "bc", "▁", "A", "b"};

std::vector<Piece> scored(float ab_c, float a_bc) {
    return {{"<unk>", 0, 2}, {"▁Ab", ab_c}, {"c", ab_c}, {"▁A", a_bc}, {"bc", a_bc}, {"▁", -20}, {"A", -20}, {"b", -20}};
}

}  // namespace

TEST(sentencepiece_unigram_takes_the_best_scored_segmentation_not_the_longest_match) {
    const SentencePieceModel spm = SentencePieceModel::parse(model_proto(scored(-8, -2), 1));
    CHECK(!spm.is_bpe());
    CHECK((spm.encode_word("▁Abc") == std::vector<std::string>{"▁A", "bc"}));
    const SentencePieceModel other = SentencePieceModel::parse(model_proto(scored(-2, -8), 1));
    CHECK((other.encode_word("▁Abc") == std::vector<std::string>{"▁Ab", "c"}));
    CHECK(spm.encode_word("▁Aq").empty());  // q has no piece: SentencePiece would emit <unk>
}

TEST(sentencepiece_bpe_merges_the_best_scored_pair_first) {
    // ▁ A b c: "bc" outscores "▁A"... and "Ab" is no piece, so ▁A + bc, whatever the longest match says.
    const SentencePieceModel spm =
            SentencePieceModel::parse(model_proto({{"▁", -1}, {"A", -1}, {"b", -1}, {"c", -1}, {"bc", -2}, {"▁A", -3}, {"▁Ab", -9}}, 2));
    CHECK(spm.is_bpe());
    CHECK((spm.encode_word("▁Abc") == std::vector<std::string>{"▁A", "bc"}));
}

TEST(sentencepiece_phrase_graph_uses_the_exact_segmentation) {
    std::vector<RejectedPhrase> rejected;
    const PhraseGraph enumerated = PhraseGraph::compile(kPieces, {{"Abc", 1}}, {}, rejected);
    CHECK(enumerated.sequences(0).size() >= 2);  // without scores, every plausible one
    const SentencePieceModel spm = SentencePieceModel::parse(model_proto(scored(-8, -2), 1));
    const PhraseGraph exact = PhraseGraph::compile(kPieces, {{"Abc", 1}}, {}, rejected, &spm);
    CHECK(rejected.empty());
    CHECK((exact.sequences(0) == std::vector<std::vector<int>>{{3, 4}}));
}

TEST(sentencepiece_malformed_model_is_named) {
    std::string message;
    try {
        SentencePieceModel::parse(model_proto(scored(-1, -1), 1).substr(0, 7));
    } catch (const Error & e) {
        message = e.code() == ErrorCode::ModelInvalid ? e.what() : "";
    }
    CHECK(message.find("embedded SentencePiece model") != std::string::npos);
}
