// parakeet.cpp bundle GGUFs (general.architecture "parakeet-bundle", format version 1): several
// single-model GGUFs in one file, every key and tensor under "<component>." with per-component
// licence keys and a content digest. The engine loads the ASR component, and the VAD loads the "vad"
// component, each through a prefixed view.
#pragma once

#include <string>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {

class GgufFile;

bool is_bundle(const GgufFile & file);

/** The components as the header lists them (no tensor data read). Throws naming a malformed header. */
std::vector<BundleComponent> bundle_components(const GgufFile & file);

/**
 * Picks the only component of kind "asr", verifies its content_sha256 and sets the file's view to it.
 * Refuses by name a bundle without one (a Silero-only bundle), with several, or of a newer version.
 */
void read_bundle_asr_component(GgufFile & file);

/**
 * The same for the only component of `kind` ("vad": the bundle's Silero VAD, loaded as the app's VAD).
 * Refuses by name a bundle without one or with several; a damaged component by its digest.
 */
void read_bundle_component(GgufFile & file, const std::string & kind);

}  // namespace parakeet
