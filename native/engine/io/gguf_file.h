// Opening a GGUF file: the container, typed key access, and the mapped data.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "mapped_file.h"

namespace parakeet {

/**
 * A string from the file as an error message may show it: quoted, without control characters, and
 * cut to its first 64 bytes with its length when longer (a 70,000-character value is not echoed whole).
 */
std::string quoted_value(const std::string & value);

/** A parsed GGUF: metadata, tensor descriptions (no data), and the file mapping. */
class GgufFile {
public:
    /** Throws Error(ModelInvalid) with the file name and what is wrong. */
    static std::unique_ptr<GgufFile> open(const std::string & path, bool use_mmap);
    ~GgufFile();
    GgufFile(const GgufFile &) = delete;
    GgufFile & operator=(const GgufFile &) = delete;

    const std::string & path() const { return path_; }
    uint64_t file_size() const { return file_size_; }
    gguf_context * gguf() const { return gguf_; }
    ggml_context * meta() const { return meta_; }

    bool has_key(const char * key) const;
    // Typed reads: a missing key returns the fallback; a key of the wrong type throws.
    std::string get_string(const char * key, const std::string & fallback) const;
    int64_t get_int(const char * key, int64_t fallback) const;  // any integer type
    double get_float(const char * key, double fallback) const;  // float32/float64 (integers accepted)
    bool get_bool(const char * key, bool fallback) const;
    std::vector<int64_t> get_int_array(const char * key) const;  // empty when missing
    std::vector<std::string> get_string_array(const char * key) const;

    /** Tensor metadata by name, or nullptr. */
    ggml_tensor * tensor(const std::string & name) const;
    /** Pointer to a tensor's bytes inside the mapped file (checked to lie inside the file). */
    const uint8_t * tensor_data(const ggml_tensor * t) const;
    /** Copies a tensor's bytes (works without a mapping). */
    void read_tensor(const ggml_tensor * t, void * dst) const;
    const MappedFile * mapping() const { return mapping_.get(); }
    uint64_t data_offset() const { return data_offset_; }
    uint64_t tensor_offset(const ggml_tensor * t) const;  // absolute file offset

    [[noreturn]] void fail(const std::string & what) const;

    // A file of another GGUF schema is read through a view of it in the engine's names
    // (model_dialect.h), set up once right after open: the engine's code then runs unchanged.
    /** Put before every key and tensor name looked up (a bundle component: "asr."). */
    void set_name_prefix(const std::string & prefix) { prefix_ = prefix; }
    const std::string & name_prefix() const { return prefix_; }
    /** Keys that answer before the file's (a schema's keys translated into the engine's); created on first use. */
    gguf_context * key_overlay();
    /** The engine's tensor name `engine_name` reads the file's `file_name` (before the prefix). */
    void alias_tensor(const std::string & engine_name, const std::string & file_name);
    /** An F32 tensor the schema leaves out and the dialect computes (held in memory, not in the file); `ne` empty: 1-D. */
    void add_computed_tensor(const std::string & name, const std::vector<float> & values, const std::vector<int64_t> & ne = {});
    /** A string key exactly as stored in the file, outside any view (a bundle's header keys); "" when absent or not a string. */
    std::string stored_string(const std::string & key) const;
    /** Key names as the view shows them: the overlay's, then the file's under the prefix (without it). */
    std::vector<std::string> key_names() const;

private:
    GgufFile() = default;
    /** Where a key lives: the overlay or the file, and its id there (id < 0: absent). */
    struct KeyRef {
        const gguf_context * ctx = nullptr;
        int64_t id = -1;
    };
    KeyRef find_key(const char * key) const;
    bool is_computed(const ggml_tensor * t) const;

    std::string path_;
    uint64_t file_size_ = 0;
    uint64_t data_offset_ = 0;
    gguf_context * gguf_ = nullptr;
    ggml_context * meta_ = nullptr;
    std::unique_ptr<MappedFile> mapping_;
    std::string prefix_;
    gguf_context * overlay_ = nullptr;
    std::map<std::string, std::string> aliases_;
    std::vector<ggml_context *> computed_;  // one context per computed tensor, data allocated
};

}  // namespace parakeet
