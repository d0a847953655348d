// runtime/backend_libraries.h: a loadable backend next to the addon that did not register is named with the
// system loader's reason; the CPU variants, ggml-base, registered backends and other files are not.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backend_libraries.h"
#include "check.h"
#include "test_files.h"

namespace {

std::filesystem::path fresh_dir() {
    const std::filesystem::path dir = parakeet_tests::scratch("backend-libs");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void write_file(const std::filesystem::path & path, const std::string & text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST(unloaded_backend_libraries_name_each_missing_backend_and_why) {
    const auto dir = fresh_dir();
#if defined(_WIN32)
    const std::string vulkan = "ggml-vulkan.dll", cuda = "ggml-cuda.dll", cpu = "ggml-cpu-haswell.dll", base = "ggml-base.dll";
#elif defined(__APPLE__)
    const std::string vulkan = "libggml-vulkan.dylib", cuda = "libggml-cuda.dylib", cpu = "libggml-cpu-haswell.dylib", base = "libggml-base.dylib";
#else
    const std::string vulkan = "libggml-vulkan.so", cuda = "libggml-cuda.so", cpu = "libggml-cpu-haswell.so", base = "libggml-base.so";
#endif
    // Not libraries at all: the loader refuses them, as it refuses one whose dependency (libvulkan.so.1) is missing.
    write_file(dir / vulkan, "not a shared library");
    write_file(dir / cuda, "not a shared library");
    write_file(dir / cpu, "x");
    write_file(dir / base, "x");
    write_file(dir / "parakeet.node", "x");
    write_file(dir / "notes.txt", "x");

    const std::vector<std::string> none = parakeet::unloaded_backend_libraries(dir.string(), {"CPU"});
    CHECK_EQ(none.size(), size_t(2));
    CHECK(none[0].rfind("CUDA: its library could not be loaded: ", 0) == 0);
    CHECK(none[1].rfind("Vulkan: its library could not be loaded: ", 0) == 0);
    // The loader's own words, naming the file it could not load.
    CHECK(none[1].find(vulkan) != std::string::npos);

    // Registered (ggml's spelling, any case): not reported.
    const std::vector<std::string> with_vulkan = parakeet::unloaded_backend_libraries(dir.string(), {"CPU", "Vulkan"});
    CHECK_EQ(with_vulkan.size(), size_t(1));
    CHECK(with_vulkan[0].rfind("CUDA: ", 0) == 0);
    CHECK(parakeet::unloaded_backend_libraries(dir.string(), {"cpu", "VULKAN", "cuda"}).empty());
    // A folder that does not exist: nothing to report.
    CHECK(parakeet::unloaded_backend_libraries((dir / "missing").string(), {"CPU"}).empty());
    std::filesystem::remove_all(dir);
}
