// Scratch files for the engine's C++ tests: raw bytes and small, well-formed GGUFs.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace parakeet_tests {

inline std::string scratch(const std::string & name) {
    const char * dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir ? dir : "/tmp") + "/parakeet-cpp-test-" + name;
}

inline void write_bytes(const std::string & path, const std::vector<uint8_t> & bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

inline std::vector<uint8_t> read_bytes(const std::string & path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/** A well-formed GGUF: `architecture`, optionally parakeet.arch, and one 400-float tensor (the window). */
inline void write_gguf(const std::string & path, const std::string & architecture, const std::string & parakeet_arch) {
    gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", architecture.c_str());
    if (!parakeet_arch.empty()) gguf_set_val_str(g, "parakeet.arch", parakeet_arch.c_str());
    ggml_init_params params = {ggml_tensor_overhead() * 2 + 400 * sizeof(float) + 256, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 400);
    ggml_set_name(t, "preprocessor.featurizer.window");
    for (int i = 0; i < 400; ++i) static_cast<float *>(t->data)[i] = 0.5f;
    gguf_add_tensor(g, t);
    gguf_write_to_file(g, path.c_str(), false);
    ggml_free(ctx);
    gguf_free(g);
}

}  // namespace parakeet_tests
