#include "tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "text_sanitize.h"

namespace parakeet {
namespace {

const std::string kWordMark = "\xE2\x96\x81";   // ▁ U+2581
const std::string kUnknown = " \xE2\x81\x87 ";  // " ⁇ " (SentencePiece's rendering of <unk>)

bool starts_with(const std::string & s, const std::string & prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string replace_marks(const std::string & s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (s.compare(i, kWordMark.size(), kWordMark) == 0) {
            out += ' ';
            i += kWordMark.size();
        } else {
            out += s[i++];
        }
    }
    return out;
}

// Unicode category P among ASCII (what NeMo's supported_punctuation collects from the vocabulary).
bool is_ascii_punctuation(const std::string & piece) { return piece.size() == 1 && std::strchr("!\"#%&'()*,-./:;?@[\\]_{}", piece[0]) != nullptr; }

int byte_fallback(const std::string & piece) {
    // "<0xNN>" pieces stand for one raw byte.
    if (piece.size() == 6 && starts_with(piece, "<0x") && piece[5] == '>') {
        return int(std::strtol(piece.substr(3, 2).c_str(), nullptr, 16));
    }
    return -1;
}

}  // namespace

Detokenizer::Detokenizer(const std::vector<std::string> & pieces) : pieces_(pieces) {
    const size_t n = pieces.size();
    rendered_.resize(n);
    starts_word_.assign(n, false);
    punctuation_.assign(n, false);
    dropped_.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
        const std::string & p = pieces[i];
        if (p == "<unk>") {
            rendered_[i] = kUnknown;
            starts_word_[i] = true;
        } else if (const int byte = byte_fallback(p); byte >= 0) {
            rendered_[i] = std::string(1, char(byte));
        } else if (p.size() >= 2 && p.front() == '<' && p.back() == '>') {
            // <s>, </s>, <pad>, <EOU>, <EOB>, language tags: not text.
            dropped_[i] = true;
        } else {
            rendered_[i] = p;
            starts_word_[i] = starts_with(p, kWordMark);
            punctuation_[i] = is_ascii_punctuation(p);
        }
    }
}

std::string Detokenizer::text(const std::vector<DecodedToken> & tokens) const {
    std::string joined;
    bool first = true, strip_leading = false;
    for (const DecodedToken & t : tokens) {
        if (t.id < 0 || size_t(t.id) >= rendered_.size() || dropped_[size_t(t.id)]) continue;
        const std::string & piece = rendered_[size_t(t.id)];
        // SentencePiece removes the dummy-prefix space of the first piece only;
        // the spaces around an <unk> ("  ⁇ ") stay, as NeMo's text shows them.
        if (first) strip_leading = starts_with(piece, kWordMark);
        first = false;
        joined += piece;
    }
    // Sanitized after joining: byte-fallback pieces can spell a control character across pieces.
    std::string out = sanitize_text(replace_marks(joined));
    if (strip_leading && !out.empty() && out.front() == ' ') out.erase(0, 1);
    return out;
}

void Detokenizer::timestamps(const std::vector<DecodedToken> & tokens, double frame_sec, double offset_sec, std::vector<Token> & out_tokens,
                             std::vector<Word> & out_words) const {
    struct Pending {
        std::string text;
        double start = 0, end = 0;
        float confidence = 1.0f;
        bool open = false;
    } word;
    auto close_word = [&] {
        if (!word.open) return;
        std::string text = sanitize_text(word.text);
        while (!text.empty() && text.front() == ' ') text.erase(0, 1);
        while (!text.empty() && text.back() == ' ') text.pop_back();
        if (!text.empty()) out_words.push_back({text, word.start, word.end, word.confidence});
        word = Pending();
    };

    double prev_end = offset_sec;
    bool have_prev = false;
    for (const DecodedToken & t : tokens) {
        if (t.id < 0 || size_t(t.id) >= pieces_.size() || dropped_[size_t(t.id)]) continue;
        const size_t id = size_t(t.id);
        Token tok;
        tok.id = t.id;
        tok.piece = sanitize_text(pieces_[id]);
        // Frames are made absolute: windows start at arbitrary samples, so the
        // window's offset is rounded to the nearest encoder frame.
        tok.frame = t.frame + int(std::lround(offset_sec / frame_sec));
        tok.duration = t.duration;
        tok.confidence = t.confidence;
        tok.start = offset_sec + t.frame * frame_sec;
        tok.end = offset_sec + (t.frame + std::max(t.duration, 0)) * frame_sec;
        if (punctuation_[id] && have_prev) {
            // NeMo _refine_timestamps: punctuation sits at the end of what it follows.
            tok.start = prev_end;
            tok.end = prev_end;
        }
        out_tokens.push_back(tok);

        const std::string piece_text = replace_marks(rendered_[id]);
        if (punctuation_[id] && word.open) {
            word.text += piece_text;
            word.confidence = std::min(word.confidence, tok.confidence);
        } else if (starts_word_[id] || !word.open) {
            close_word();
            word.open = true;
            word.text = piece_text;
            word.start = tok.start;
            word.end = tok.end;
            word.confidence = tok.confidence;
        } else {
            word.text += piece_text;
            word.end = std::max(word.end, tok.end);
            word.confidence = std::min(word.confidence, tok.confidence);
        }
        prev_end = tok.end;
        have_prev = true;
    }
    close_word();
}

}  // namespace parakeet
