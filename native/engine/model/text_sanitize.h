// Transcript text is shown in terminals, written into subtitle files and typed
// into other applications, and a model's vocabulary is data from a file: a
// piece could carry an ESC sequence, a line break (xdotool types Return), a
// bidi override or any other control character. Detokenized text passes
// through here before it leaves the engine.
#pragma once

#include <string>

namespace parakeet {

/**
 * Valid UTF-8 without control characters: C0 (except as below), DEL and C1 controls, bidi
 * embeddings/overrides/isolates and marks, and invisible characters (zero-width space, BOM) are removed;
 * tab, line breaks (LF, CR, VT, FF, NEL, U+2028/9) become one space; invalid UTF-8 becomes U+FFFD.
 */
std::string sanitize_text(const std::string & text);

}  // namespace parakeet
