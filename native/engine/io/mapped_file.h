// A read-only memory mapping of a whole file (weights are used in place on CPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace parakeet {

class MappedFile {
public:
    /** Maps `path` read-only; throws Error(ModelInvalid) when it cannot. `populate` pre-faults the pages. */
    static std::unique_ptr<MappedFile> map(const std::string & path, bool populate);
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile & operator=(const MappedFile &) = delete;

    const uint8_t * data() const { return data_; }
    size_t size() const { return size_; }
    /**
     * Drops the whole pages inside [offset, offset + length) from this process's resident set
     * (a weight that another copy replaces); they are read again from the file if ever touched.
     */
    void release(uint64_t offset, uint64_t length) const;

private:
    MappedFile() = default;
    const uint8_t * data_ = nullptr;
    size_t size_ = 0;
#ifdef _WIN32
    void * file_ = nullptr;
    void * mapping_ = nullptr;
#endif
};

/** Size of a file in bytes, or throws Error(ModelInvalid) naming the OS error. */
uint64_t file_size_of(const std::string & path);

}  // namespace parakeet
