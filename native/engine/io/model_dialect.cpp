#include "model_dialect.h"

#include "bundle_format.h"
#include "gguf_file.h"
#include "nvidia_schema.h"
#include "nvidia_sortformer_schema.h"

namespace parakeet {
namespace {

/** general.architecture as stored for the view's model (inside a bundle: the component's own). */
std::string stored_architecture(const GgufFile & file) { return file.stored_string(file.name_prefix() + "general.architecture"); }

}  // namespace

void adopt_dialect(GgufFile & file) {
    if (is_bundle(file)) read_bundle_asr_component(file);
    if (is_nvidia_schema(file)) read_through_nvidia_schema(file);
    if (is_nvidia_sortformer_schema(file)) read_through_nvidia_sortformer_schema(file);
}

void describe_dialect(const GgufFile & file, ModelInfo & info) {
    const std::string stored = stored_architecture(file);
    info.schema = stored == "asr" || stored == "sortformer" ? "NeMo-Speech.cpp" : "parakeet.cpp";
    if (is_bundle(file)) {
        info.schema = "parakeet.cpp bundle (" + info.schema + " component)";
        info.components = bundle_components(file);
    }
    info.sentencepiece_bytes = embedded_sentencepiece_model(file).size();
}

std::string embedded_sentencepiece_model(const GgufFile & file) {
    return stored_architecture(file) == "asr" ? nvidia_sentencepiece_model(file) : std::string();
}

}  // namespace parakeet
