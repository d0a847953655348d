// The loadable ggml backends (distributable builds) that are next to the addon but did not register, and
// why: ggml's loader skips a library it cannot open without a word (silent in release builds), so a machine
// without a Vulkan loader would start on the CPU and never say why.
#pragma once

#include <string>
#include <vector>

namespace parakeet {

/**
 * One line per backend library in `dir` (libggml-<name>.so / .dylib, ggml-<name>.dll; the CPU variants and
 * ggml-base excluded) whose backend is not among `registered` (ggml_backend_reg_name, compared without case):
 * "<Name>: <why>", the reason being the system loader's own message when the library cannot be opened (e.g. a
 * missing libvulkan.so.1), else that it opened but registered no backend (no usable device or driver).
 */
std::vector<std::string> unloaded_backend_libraries(const std::string & dir, const std::vector<std::string> & registered);

}  // namespace parakeet
