#include "sentencepiece_model.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "parakeet/parakeet.h"

namespace parakeet {
namespace {

// sentencepiece_model.proto: ModelProto { repeated SentencePiece pieces = 1; TrainerSpec trainer_spec = 2; }
// SentencePiece { string piece = 1; float score = 2; Type type = 3; }  TrainerSpec { ModelType model_type = 3; }
constexpr uint32_t kPieces = 1, kTrainerSpec = 2;
constexpr uint32_t kPieceText = 1, kPieceScore = 2, kPieceType = 3;
constexpr uint32_t kModelType = 3;
constexpr uint64_t kTypeNormal = 1, kTypeUserDefined = 4;
constexpr uint64_t kModelBpe = 2;

[[noreturn]] void malformed(const std::string & what) {
    throw Error(ErrorCode::ModelInvalid, "the embedded SentencePiece model (asr.tokenizer.spm_model) is malformed: " + what +
                                                 "; convert the model again, or use a file without it");
}

/** Protobuf wire format, read by hand: varints, fixed32 and length-delimited fields. */
class Reader {
public:
    Reader(const char * data, size_t size) : at_(data), end_(data + size) {}
    bool done() const { return at_ >= end_; }

    uint64_t varint() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at_ >= end_) malformed("a varint is cut short");
            const auto byte = static_cast<unsigned char>(*at_++);
            value |= uint64_t(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return value;
        }
        malformed("a varint is longer than 10 bytes");
    }

    /** The next field's number and wire type. */
    void key(uint32_t & field, uint32_t & wire) {
        const uint64_t k = varint();
        field = uint32_t(k >> 3);
        wire = uint32_t(k & 7);
    }

    Reader bytes() {
        const uint64_t n = varint();
        if (n > uint64_t(end_ - at_)) malformed("a field runs past the end");
        Reader inner(at_, size_t(n));
        at_ += n;
        return inner;
    }

    float fixed32() {
        if (end_ - at_ < 4) malformed("a float is cut short");
        uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits |= uint32_t(static_cast<unsigned char>(at_[i])) << (8 * i);
        at_ += 4;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }

    std::string text() {
        Reader r = bytes();
        return std::string(r.at_, r.end_);
    }

    void skip(uint32_t wire) {
        switch (wire) {
            case 0: varint(); return;
            case 1: advance(8); return;
            case 2: bytes(); return;
            case 5: advance(4); return;
            default: malformed("wire type " + std::to_string(wire) + " (not a SentencePiece model)");
        }
    }

private:
    void advance(size_t n) {
        if (size_t(end_ - at_) < n) malformed("a field is cut short");
        at_ += n;
    }
    const char * at_;
    const char * end_;
};

/** Byte length of the UTF-8 character that starts with `lead`. */
size_t utf8_length(unsigned char lead) {
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    if (lead >= 0xC0) return 2;
    return 1;
}

}  // namespace

SentencePieceModel SentencePieceModel::parse(const std::string & bytes) {
    SentencePieceModel model;
    Reader proto(bytes.data(), bytes.size());
    while (!proto.done()) {
        uint32_t field, wire;
        proto.key(field, wire);
        if (field == kPieces && wire == 2) {
            Reader piece = proto.bytes();
            std::string text;
            float score = 0;
            uint64_t type = kTypeNormal;
            while (!piece.done()) {
                uint32_t f, w;
                piece.key(f, w);
                if (f == kPieceText && w == 2)
                    text = piece.text();
                else if (f == kPieceScore && w == 5)
                    score = piece.fixed32();
                else if (f == kPieceType && w == 0)
                    type = piece.varint();
                else
                    piece.skip(w);
            }
            if (text.empty()) malformed("a piece has no text");
            if (!std::isfinite(score)) malformed("the piece '" + text + "' has a non-finite score");
            if (type == kTypeNormal || type == kTypeUserDefined) {
                model.scores_.emplace(text, score);
                model.longest_ = std::max(model.longest_, text.size());
            }
        } else if (field == kTrainerSpec && wire == 2) {
            Reader spec = proto.bytes();
            while (!spec.done()) {
                uint32_t f, w;
                spec.key(f, w);
                if (f == kModelType && w == 0)
                    model.bpe_ = spec.varint() == kModelBpe;
                else
                    spec.skip(w);
            }
        } else {
            proto.skip(wire);
        }
    }
    if (model.scores_.empty()) malformed("it holds no pieces");
    return model;
}

std::vector<std::string> SentencePieceModel::encode_word(const std::string & marked_word) const {
    // Character boundaries: SentencePiece segments whole Unicode characters.
    std::vector<size_t> starts;
    for (size_t i = 0; i < marked_word.size(); i += utf8_length(static_cast<unsigned char>(marked_word[i]))) starts.push_back(i);
    starts.push_back(marked_word.size());
    const size_t n = starts.size() - 1;
    if (n == 0) return {};

    if (bpe_) {
        std::vector<std::string> symbols;
        for (size_t i = 0; i < n; ++i) symbols.push_back(marked_word.substr(starts[i], starts[i + 1] - starts[i]));
        for (;;) {
            size_t best = symbols.size();
            float best_score = -std::numeric_limits<float>::infinity();
            for (size_t i = 0; i + 1 < symbols.size(); ++i) {
                const auto it = scores_.find(symbols[i] + symbols[i + 1]);
                if (it != scores_.end() && it->second > best_score) {
                    best_score = it->second;
                    best = i;
                }
            }
            if (best == symbols.size()) break;
            symbols[best] += symbols[best + 1];
            symbols.erase(symbols.begin() + std::ptrdiff_t(best + 1));
        }
        for (const std::string & s : symbols) {
            if (scores_.count(s) == 0) return {};
        }
        return symbols;
    }

    // Unigram: Viterbi over character positions, the best total score to each; ties keep the earlier (longer) piece.
    const float none = -std::numeric_limits<float>::infinity();
    std::vector<float> best(n + 1, none);
    std::vector<size_t> from(n + 1, 0);
    best[0] = 0;
    for (size_t i = 0; i < n; ++i) {
        if (best[i] == none) continue;
        for (size_t j = i + 1; j <= n && starts[j] - starts[i] <= longest_; ++j) {
            const auto it = scores_.find(marked_word.substr(starts[i], starts[j] - starts[i]));
            if (it == scores_.end()) continue;
            const float total = best[i] + it->second;
            if (total > best[j]) {
                best[j] = total;
                from[j] = i;
            }
        }
    }
    if (best[n] == none) return {};
    std::vector<std::string> pieces;
    for (size_t j = n; j > 0; j = from[j]) pieces.insert(pieces.begin(), marked_word.substr(starts[from[j]], starts[j] - starts[from[j]]));
    return pieces;
}

}  // namespace parakeet
