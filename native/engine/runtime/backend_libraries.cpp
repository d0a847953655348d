// runtime/backend_libraries.h: why a loadable backend next to the addon is not registered.
#include "backend_libraries.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace parakeet {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

/** "vulkan" from libggml-vulkan.so, ggml-vulkan.dll or libggml-vulkan.dylib; empty for anything else. */
std::string backend_of_file(const std::string & file) {
    std::string name = file;
    if (name.rfind("lib", 0) == 0) name = name.substr(3);
    if (name.rfind("ggml-", 0) != 0) return {};
    name = name.substr(5);
    for (const char * ext : {".so", ".dll", ".dylib"}) {
        const std::string e(ext);
        if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return name.substr(0, name.size() - e.size());
    }
    return {};
}

/** The name users know a backend by, as ggml registers it: Vulkan, Metal, OpenCL; CUDA, BLAS, … in capitals. */
std::string display_name(const std::string & backend) {
    if (backend == "vulkan") return "Vulkan";
    if (backend == "metal") return "Metal";
    if (backend == "opencl") return "OpenCL";
    std::string up = backend;
    std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return up;
}

/** The system loader's message for `path`, or empty when it opens (it is closed again). */
std::string open_error(const std::filesystem::path & path) {
#if defined(_WIN32)
    HMODULE module = LoadLibraryW(path.wstring().c_str());
    if (module != nullptr) {
        FreeLibrary(module);
        return {};
    }
    return "Windows could not load it (error " + std::to_string(GetLastError()) + ")";
#else
    void * handle = dlopen(path.string().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
        dlclose(handle);
        return {};
    }
    const char * why = dlerror();
    return why != nullptr ? why : "the system loader could not open it";
#endif
}

}  // namespace

std::vector<std::string> unloaded_backend_libraries(const std::string & dir, const std::vector<std::string> & registered) {
    std::vector<std::string> out;
    std::error_code error;
    std::filesystem::directory_iterator it(dir, error);
    if (error) return out;
    std::vector<std::filesystem::path> files;
    for (const auto & entry : it) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto & path : files) {
        const std::string backend = backend_of_file(path.filename().string());
        // The CPU variants (ggml-cpu-haswell, …) and ggml-base are not devices of their own.
        if (backend.empty() || backend == "base" || backend.rfind("cpu", 0) == 0) continue;
        const bool is_registered =
                std::any_of(registered.begin(), registered.end(), [&](const std::string & r) { return lower(r) == lower(backend); });
        if (is_registered) continue;
        const std::string why = open_error(path);
        out.push_back(display_name(backend) + ": " +
                      (why.empty() ? "its library loads but registered no backend (no usable device or driver)"
                                   : "its library could not be loaded: " + why));
    }
    return out;
}

}  // namespace parakeet
