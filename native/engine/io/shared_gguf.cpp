#include "shared_gguf.h"

#include <sys/stat.h>

#include <map>
#include <mutex>

#include "model_dialect.h"

namespace parakeet {
namespace {

/** Path and what says the file is still the same one: device, inode, size, modification time. */
std::string identity_of(const std::string & path) {
#ifdef _WIN32
    struct _stat64 s;
    if (_stat64(path.c_str(), &s) != 0) return "";
    return path + "|" + std::to_string(s.st_dev) + ":" + std::to_string(s.st_ino) + ":" + std::to_string(s.st_size) + ":" +
           std::to_string(s.st_mtime);
#else
    struct stat s;
    if (stat(path.c_str(), &s) != 0) return "";
#if defined(__APPLE__)
    const long long mtime_ns = static_cast<long long>(s.st_mtimespec.tv_sec) * 1000000000LL + s.st_mtimespec.tv_nsec;
#else
    const long long mtime_ns = static_cast<long long>(s.st_mtim.tv_sec) * 1000000000LL + s.st_mtim.tv_nsec;
#endif
    return path + "|" + std::to_string(s.st_dev) + ":" + std::to_string(s.st_ino) + ":" + std::to_string(s.st_size) + ":" + std::to_string(mtime_ns);
#endif
}

/** Opened and seen through its schema's view (model_dialect.h) before anyone shares it. */
std::shared_ptr<const GgufFile> open_model_file(const std::string & path, bool use_mmap) {
    std::shared_ptr<GgufFile> file = GgufFile::open(path, use_mmap);
    adopt_dialect(*file);
    return file;
}

}  // namespace

std::shared_ptr<const GgufFile> open_shared_gguf(const std::string & path, bool use_mmap) {
    if (!use_mmap) return open_model_file(path, false);
    const std::string identity = identity_of(path);
    if (identity.empty()) return open_model_file(path, true);  // it says why the file cannot be opened
    static std::mutex lock;
    static std::map<std::string, std::weak_ptr<const GgufFile>> open;
    std::lock_guard<std::mutex> guard(lock);
    for (auto it = open.begin(); it != open.end();) it = it->second.expired() ? open.erase(it) : std::next(it);
    if (std::shared_ptr<const GgufFile> alive = open[identity].lock()) return alive;
    std::shared_ptr<const GgufFile> opened = open_model_file(path, true);
    open[identity] = opened;
    return opened;
}

}  // namespace parakeet
