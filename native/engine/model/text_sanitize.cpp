#include "text_sanitize.h"

#include <cstdint>

namespace parakeet {
namespace {

const char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

/** Decodes one UTF-8 sequence at s[i]; returns its length, or 0 when it is not valid (overlong, surrogate, > U+10FFFF). */
size_t decode_utf8(const std::string & s, size_t i, uint32_t & cp) {
    const auto byte = [&](size_t k) { return uint8_t(s[k]); };
    const uint8_t b0 = byte(i);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    size_t len = 0;
    uint32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        cp = b0 & 0x1F;
        min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        cp = b0 & 0x0F;
        min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        cp = b0 & 0x07;
        min = 0x10000;
    } else
        return 0;
    if (i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        const uint8_t b = byte(i + k);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

bool becomes_space(uint32_t cp) {
    return cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

bool removed(uint32_t cp) {
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return true;       // C0, DEL, C1
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F) return true;  // bidi marks (ALM, LRM, RLM)
    if (cp >= 0x202A && cp <= 0x202E) return true;                  // bidi embeddings and overrides
    if (cp >= 0x2066 && cp <= 0x2069) return true;                  // bidi isolates
    // Invisible: soft hyphen, Mongolian vowel separator, zero-width space, word joiner, BOM. ZWNJ and ZWJ
    // (U+200C/D) stay: they change how some scripts and emoji render, and do nothing in a terminal.
    if (cp == 0x00AD || cp == 0x180E || cp == 0x200B || cp == 0x2060 || cp == 0xFEFF) return true;
    if (cp >= 0xFFF9 && cp <= 0xFFFB) return true;  // interlinear annotation controls
    return false;
}

}  // namespace

std::string sanitize_text(const std::string & text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        uint32_t cp = 0;
        const size_t len = decode_utf8(text, i, cp);
        if (len == 0) {
            out += kReplacement;
            ++i;
            continue;
        }
        if (becomes_space(cp))
            out += ' ';
        else if (!removed(cp))
            out.append(text, i, len);
        i += len;
    }
    return out;
}

}  // namespace parakeet
