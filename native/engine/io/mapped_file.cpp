#include "mapped_file.h"

#include <cerrno>
#include <cstring>

#include "parakeet/parakeet.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace parakeet {

#ifdef _WIN32

uint64_t file_size_of(const std::string & path) {
    WIN32_FILE_ATTRIBUTE_DATA data;
    if (!GetFileAttributesExA(path.c_str(), GetFileExInfoStandard, &data)) {
        throw Error(ErrorCode::ModelInvalid, path + ": cannot open the file (Windows error " + std::to_string(GetLastError()) + ")");
    }
    return (uint64_t(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
}

std::unique_ptr<MappedFile> MappedFile::map(const std::string & path, bool /*populate*/) {
    std::unique_ptr<MappedFile> out(new MappedFile());
    HANDLE file =
            CreateFileA(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        throw Error(ErrorCode::ModelInvalid, path + ": cannot open the file (Windows error " + std::to_string(GetLastError()) + ")");
    }
    LARGE_INTEGER size;
    GetFileSizeEx(file, &size);
    out->file_ = file;
    out->size_ = size_t(size.QuadPart);
    if (out->size_ == 0) return out;
    HANDLE mapping = CreateFileMappingA(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (mapping == nullptr) throw Error(ErrorCode::ModelInvalid, path + ": cannot map the file");
    out->mapping_ = mapping;
    out->data_ = static_cast<const uint8_t *>(MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0));
    if (out->data_ == nullptr) throw Error(ErrorCode::ModelInvalid, path + ": cannot map the file");
    return out;
}

MappedFile::~MappedFile() {
    if (data_) UnmapViewOfFile(data_);
    if (mapping_) CloseHandle(mapping_);
    if (file_) CloseHandle(file_);
}

void MappedFile::release(uint64_t, uint64_t) const {}  // the working set is the OS's business there

#else

uint64_t file_size_of(const std::string & path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
        throw Error(ErrorCode::ModelInvalid, path + ": cannot open the file (" + std::strerror(errno) + ")");
    }
    if (!S_ISREG(st.st_mode)) throw Error(ErrorCode::ModelInvalid, path + ": not a regular file");
    return uint64_t(st.st_size);
}

std::unique_ptr<MappedFile> MappedFile::map(const std::string & path, bool populate) {
    std::unique_ptr<MappedFile> out(new MappedFile());
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::ModelInvalid, path + ": cannot open the file (" + std::strerror(errno) + ")");
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ::close(fd);
        throw Error(ErrorCode::ModelInvalid, path + ": cannot read the file size");
    }
    out->size_ = size_t(st.st_size);
    if (out->size_ > 0) {
        int flags = MAP_SHARED;
#ifdef MAP_POPULATE
        // Pre-faulting at load keeps page faults out of the first transcription.
        if (populate) flags |= MAP_POPULATE;
#endif
        void * addr = mmap(nullptr, out->size_, PROT_READ, flags, fd, 0);
        if (addr == MAP_FAILED) {
            int err = errno;
            ::close(fd);
            throw Error(ErrorCode::ModelInvalid, path + ": cannot map the file (" + std::strerror(err) + ")");
        }
        out->data_ = static_cast<const uint8_t *>(addr);
    }
    ::close(fd);
    return out;
}

MappedFile::~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<uint8_t *>(data_), size_);
}

void MappedFile::release(uint64_t offset, uint64_t length) const {
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t first = (offset + page - 1) / page * page, last = (offset + length) / page * page;
    if (data_ == nullptr || last <= first || last > size_) return;
    madvise(const_cast<uint8_t *>(data_) + first, size_t(last - first), MADV_DONTNEED);  // a hint: failure only costs memory
}

#endif

}  // namespace parakeet
