#include "gguf_file.h"

#include <cctype>
#include <cstdio>
#include <cstring>

#include "foreign_models.h"
#include "log.h"
#include "parakeet/parakeet.h"
#include "text_sanitize.h"

namespace parakeet {
namespace {

/**
 * What a file that is not a GGUF is, by the magic of a few formats people pick by mistake. Nothing
 * else of its content is ever quoted: the path may name any readable file (/etc/shadow, a key).
 */
std::string known_format(const std::string & path, const uint8_t * head, size_t n) {
    // The model formats a Parakeet checkpoint comes in before conversion, by their extension (their
    // content starts like any ZIP, tar or protobuf) or, for safetensors, its JSON header after a u64 length.
    static const char * const kConvert = ": convert the checkpoint to GGUF first (parakeet.cpp's converter)";
    std::string ext;
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of("/\\");
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
        for (size_t i = dot; i < path.size(); ++i) ext += char(std::tolower(static_cast<unsigned char>(path[i])));
    }
    if (ext == ".nemo") return std::string(" (it is a NeMo checkpoint, .nemo") + kConvert + ")";
    if (ext == ".onnx") return std::string(" (it is an ONNX model") + kConvert + ")";
    if (ext == ".safetensors" || (n >= 10 && head[8] == '{' && head[9] == '"' && head[6] == 0 && head[7] == 0)) {
        return std::string(" (it is a safetensors file") + kConvert + ")";
    }
    struct Magic {
        const char * bytes;
        size_t size;
        const char * what;
    };
    static const Magic magics[] = {
            {"RIFF", 4, "a RIFF file (WAV audio?)"},
            {"PK\x03\x04", 4, "a ZIP archive (a PyTorch checkpoint?)"},
            {"\x7F"
             "ELF",
             4, "an ELF executable"},
            {"OggS", 4, "Ogg audio"},
            {"fLaC", 4, "FLAC audio"},
            {"ID3", 3, "MP3 audio"},
            {"\x89PNG", 4, "a PNG image"},
            {"%PDF", 4, "a PDF document"},
            {"\x1F\x8B", 2, "a gzip archive (a .nemo file must be unpacked and converted first)"},
    };
    for (const Magic & m : magics) {
        if (n >= m.size && std::memcmp(head, m.bytes, m.size) == 0) return std::string(" (it looks like ") + m.what + ")";
    }
    return "";
}

const char * gguf_type_label(enum gguf_type type) { return type == GGUF_TYPE_ARRAY ? "array" : gguf_type_name(type); }

bool is_integer_type(enum gguf_type type) {
    switch (type) {
        case GGUF_TYPE_UINT8:
        case GGUF_TYPE_INT8:
        case GGUF_TYPE_UINT16:
        case GGUF_TYPE_INT16:
        case GGUF_TYPE_UINT32:
        case GGUF_TYPE_INT32:
        case GGUF_TYPE_UINT64:
        case GGUF_TYPE_INT64: return true;
        default: return false;
    }
}

int64_t integer_at(enum gguf_type type, const void * data, size_t i) {
    switch (type) {
        case GGUF_TYPE_UINT8: return static_cast<const uint8_t *>(data)[i];
        case GGUF_TYPE_INT8: return static_cast<const int8_t *>(data)[i];
        case GGUF_TYPE_UINT16: return static_cast<const uint16_t *>(data)[i];
        case GGUF_TYPE_INT16: return static_cast<const int16_t *>(data)[i];
        case GGUF_TYPE_UINT32: return static_cast<const uint32_t *>(data)[i];
        case GGUF_TYPE_INT32: return static_cast<const int32_t *>(data)[i];
        case GGUF_TYPE_UINT64: {
            uint64_t v = static_cast<const uint64_t *>(data)[i];
            return v > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(v);
        }
        case GGUF_TYPE_INT64: return static_cast<const int64_t *>(data)[i];
        default: return 0;
    }
}

}  // namespace

std::string quoted_value(const std::string & value) {
    constexpr size_t kMax = 64;
    const std::string clean = sanitize_text(value);
    if (clean.size() <= kMax) return "'" + clean + "'";
    size_t cut = kMax;
    while (cut > 0 && (uint8_t(clean[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return "'" + clean.substr(0, cut) + "\xE2\x80\xA6' (" + std::to_string(value.size()) + " bytes)";
}

std::unique_ptr<GgufFile> GgufFile::open(const std::string & path, bool use_mmap) {
    std::unique_ptr<GgufFile> file(new GgufFile());
    file->path_ = path;
    file->file_size_ = file_size_of(path);

    // Check the magic ourselves: "not a GGUF file" is clearer than a parse error.
    uint8_t head[16] = {0};
    size_t head_n = 0;
    if (FILE * f = std::fopen(path.c_str(), "rb")) {
        head_n = std::fread(head, 1, sizeof(head), f);
        std::fclose(f);
    } else {
        throw Error(ErrorCode::ModelInvalid, path + ": cannot open the file");
    }
    if (file->file_size_ == 0 && head_n > 0) {
        // /proc files say 0 bytes and still read: their content is not a fixed file.
        file->fail("not a regular file (its size reads 0 bytes but it has content, like a /proc file); choose a .gguf model file");
    }
    if (file->file_size_ == 0) file->fail("the file is empty (0 bytes): not a GGUF model; download or export it again");
    if (head_n < 4 || std::memcmp(head, "GGUF", 4) != 0) {
        const std::string foreign = foreign_container_refusal(head, head_n);
        if (!foreign.empty()) file->fail(foreign);
        file->fail("not a GGUF file" + known_format(path, head, head_n) +
                   ": a GGUF model starts with \"GGUF\"; choose a .gguf model in the parakeet.cpp format");
    }
    if (head_n < 8) file->fail("truncated GGUF file: " + std::to_string(file->file_size_) + " bytes, the header alone needs 24");
    uint32_t version = 0;
    std::memcpy(&version, head + 4, 4);
    if (version < 2 || version > 3) {
        file->fail("GGUF version " + std::to_string(version) + " is not supported (expected 2 or 3)");
    }

    GgmlErrorCapture capture;
    gguf_init_params params = {/*no_alloc*/ true, /*ctx*/ &file->meta_};
    file->gguf_ = gguf_init_from_file(path.c_str(), params);
    if (file->gguf_ == nullptr) {
        std::string detail = capture.text();
        file->fail("the GGUF container is corrupt or truncated" + (detail.empty() ? std::string() : " (" + detail + ")") +
                   "; download the model again");
    }
    file->data_offset_ = gguf_get_data_offset(file->gguf_);

    // Every tensor's bytes must lie inside the file.
    const int64_t n_tensors = gguf_get_n_tensors(file->gguf_);
    for (int64_t i = 0; i < n_tensors; ++i) {
        const uint64_t begin = file->data_offset_ + gguf_get_tensor_offset(file->gguf_, i);
        const uint64_t size = gguf_get_tensor_size(file->gguf_, i);
        if (begin > file->file_size_ || size > file->file_size_ - begin) {
            file->fail("tensor " + quoted_value(gguf_get_tensor_name(file->gguf_, i)) + " extends past the end of the file (needs bytes up to " +
                       std::to_string(begin + size) + ", the file has " + std::to_string(file->file_size_) +
                       "): the file is truncated; download it again");
        }
    }
    if (use_mmap) {
        file->mapping_ = MappedFile::map(path, true);
        // The file may have changed since it was parsed: the mapping is what will be read.
        if (file->mapping_->size() != file->file_size_) {
            file->fail("the file changed while it was being opened (" + std::to_string(file->file_size_) + " bytes, now " +
                       std::to_string(file->mapping_->size()) + "); try again once it is complete");
        }
    }
    return file;
}

GgufFile::~GgufFile() {
    for (ggml_context * ctx : computed_) ggml_free(ctx);
    if (overlay_ != nullptr) gguf_free(overlay_);
    if (meta_ != nullptr) ggml_free(meta_);
    if (gguf_ != nullptr) gguf_free(gguf_);
}

void GgufFile::fail(const std::string & what) const { throw Error(ErrorCode::ModelInvalid, path_ + ": " + what); }

GgufFile::KeyRef GgufFile::find_key(const char * key) const {
    if (overlay_ != nullptr) {
        const int64_t id = gguf_find_key(overlay_, key);
        if (id >= 0) return {overlay_, id};
    }
    return {gguf_, gguf_find_key(gguf_, prefix_.empty() ? key : (prefix_ + key).c_str())};
}

bool GgufFile::has_key(const char * key) const { return find_key(key).id >= 0; }

std::string GgufFile::get_string(const char * key, const std::string & fallback) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return fallback;
    const enum gguf_type type = gguf_get_kv_type(k.ctx, k.id);
    if (type != GGUF_TYPE_STRING) fail(std::string("key '") + key + "' has type " + gguf_type_label(type) + ", expected string");
    return gguf_get_val_str(k.ctx, k.id);
}

int64_t GgufFile::get_int(const char * key, int64_t fallback) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return fallback;
    const enum gguf_type type = gguf_get_kv_type(k.ctx, k.id);
    if (!is_integer_type(type)) fail(std::string("key '") + key + "' has type " + gguf_type_label(type) + ", expected an integer");
    return integer_at(type, gguf_get_val_data(k.ctx, k.id), 0);
}

double GgufFile::get_float(const char * key, double fallback) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return fallback;
    const enum gguf_type type = gguf_get_kv_type(k.ctx, k.id);
    if (type == GGUF_TYPE_FLOAT32) return gguf_get_val_f32(k.ctx, k.id);
    if (type == GGUF_TYPE_FLOAT64) return gguf_get_val_f64(k.ctx, k.id);
    if (is_integer_type(type)) return double(integer_at(type, gguf_get_val_data(k.ctx, k.id), 0));
    fail(std::string("key '") + key + "' has type " + gguf_type_label(type) + ", expected a number");
}

bool GgufFile::get_bool(const char * key, bool fallback) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return fallback;
    const enum gguf_type type = gguf_get_kv_type(k.ctx, k.id);
    if (type == GGUF_TYPE_BOOL) return gguf_get_val_bool(k.ctx, k.id);
    if (is_integer_type(type)) return integer_at(type, gguf_get_val_data(k.ctx, k.id), 0) != 0;
    fail(std::string("key '") + key + "' has type " + gguf_type_label(type) + ", expected bool");
}

std::vector<int64_t> GgufFile::get_int_array(const char * key) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return {};
    if (gguf_get_kv_type(k.ctx, k.id) != GGUF_TYPE_ARRAY) fail(std::string("key '") + key + "' is not an array");
    const enum gguf_type type = gguf_get_arr_type(k.ctx, k.id);
    if (!is_integer_type(type)) fail(std::string("key '") + key + "' is an array of " + gguf_type_label(type) + ", expected integers");
    const size_t n = gguf_get_arr_n(k.ctx, k.id);
    const void * data = gguf_get_arr_data(k.ctx, k.id);
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = integer_at(type, data, i);
    return out;
}

std::vector<std::string> GgufFile::get_string_array(const char * key) const {
    const KeyRef k = find_key(key);
    if (k.id < 0) return {};
    if (gguf_get_kv_type(k.ctx, k.id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(k.ctx, k.id) != GGUF_TYPE_STRING) {
        fail(std::string("key '") + key + "' is not an array of strings");
    }
    const size_t n = gguf_get_arr_n(k.ctx, k.id);
    std::vector<std::string> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.emplace_back(gguf_get_arr_str(k.ctx, k.id, i));
    return out;
}

gguf_context * GgufFile::key_overlay() {
    if (overlay_ == nullptr) overlay_ = gguf_init_empty();
    return overlay_;
}

void GgufFile::alias_tensor(const std::string & engine_name, const std::string & file_name) { aliases_[engine_name] = file_name; }

void GgufFile::add_computed_tensor(const std::string & name, const std::vector<float> & values, const std::vector<int64_t> & ne) {
    const std::vector<int64_t> shape = ne.empty() ? std::vector<int64_t>{int64_t(values.size())} : ne;
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    if (count != int64_t(values.size()) || shape.size() > GGML_MAX_DIMS) fail("internal: computed tensor '" + name + "' does not match its shape");
    ggml_init_params params = {ggml_tensor_overhead() + values.size() * sizeof(float) + GGML_MEM_ALIGN, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    computed_.push_back(ctx);
    ggml_tensor * t = ggml_new_tensor(ctx, GGML_TYPE_F32, int(shape.size()), shape.data());
    ggml_set_name(t, name.c_str());
    std::memcpy(t->data, values.data(), values.size() * sizeof(float));
}

std::string GgufFile::stored_string(const std::string & key) const {
    const int64_t id = gguf_find_key(gguf_, key.c_str());
    return id >= 0 && gguf_get_kv_type(gguf_, id) == GGUF_TYPE_STRING ? gguf_get_val_str(gguf_, id) : "";
}

std::vector<std::string> GgufFile::key_names() const {
    std::vector<std::string> out;
    if (overlay_ != nullptr) {
        for (int64_t i = 0; i < gguf_get_n_kv(overlay_); ++i) out.emplace_back(gguf_get_key(overlay_, i));
    }
    for (int64_t i = 0; i < gguf_get_n_kv(gguf_); ++i) {
        const std::string key = gguf_get_key(gguf_, i);
        if (key.compare(0, prefix_.size(), prefix_) == 0) out.push_back(key.substr(prefix_.size()));
    }
    return out;
}

ggml_tensor * GgufFile::tensor(const std::string & name) const {
    const auto alias = aliases_.find(name);
    const std::string & stored = alias == aliases_.end() ? name : alias->second;
    if (ggml_tensor * t = ggml_get_tensor(meta_, (prefix_ + stored).c_str())) return t;
    for (ggml_context * ctx : computed_) {
        if (ggml_tensor * t = ggml_get_tensor(ctx, name.c_str())) return t;
    }
    return nullptr;
}

bool GgufFile::is_computed(const ggml_tensor * t) const {
    // The file's tensors are descriptions only (no_alloc): data is set on computed ones alone.
    return t->data != nullptr;
}

uint64_t GgufFile::tensor_offset(const ggml_tensor * t) const {
    if (is_computed(t)) fail(std::string("tensor '") + ggml_get_name(t) + "' is computed at load, not stored in the file");
    const int64_t id = gguf_find_tensor(gguf_, ggml_get_name(t));
    if (id < 0) fail(std::string("tensor '") + ggml_get_name(t) + "' is not in the file");
    return data_offset_ + gguf_get_tensor_offset(gguf_, id);
}

const uint8_t * GgufFile::tensor_data(const ggml_tensor * t) const {
    if (is_computed(t)) return static_cast<const uint8_t *>(t->data);
    if (!mapping_) return nullptr;
    return mapping_->data() + tensor_offset(t);
}

void GgufFile::read_tensor(const ggml_tensor * t, void * dst) const {
    const size_t n = ggml_nbytes(t);
    if (mapping_ || is_computed(t)) {
        std::memcpy(dst, tensor_data(t), n);
        return;
    }
    FILE * f = std::fopen(path_.c_str(), "rb");
    if (f == nullptr) fail("cannot reopen the file to read tensor data");
    const uint64_t offset = tensor_offset(t);
#ifdef _WIN32
    const int seek = _fseeki64(f, int64_t(offset), SEEK_SET);
#else
    const int seek = fseeko(f, off_t(offset), SEEK_SET);
#endif
    const size_t got = seek == 0 ? std::fread(dst, 1, n, f) : 0;
    std::fclose(f);
    if (got != n) fail(std::string("could not read the data of tensor '") + ggml_get_name(t) + "' (file truncated?)");
}

}  // namespace parakeet
