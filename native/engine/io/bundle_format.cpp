#include "bundle_format.h"

#include <cstdio>
#include <cstring>
#include <map>

#include "gguf_file.h"
#include "sha256.h"

namespace parakeet {
namespace {

constexpr int64_t kKnownVersion = 1;

std::string component_key(const std::string & component, const char * field) { return "parakeet.bundle." + component + "." + field; }

bool has_prefix(const char * name, const std::string & prefix) { return std::strncmp(name, prefix.c_str(), prefix.size()) == 0; }

std::string names_of(const std::vector<BundleComponent> & components) {
    std::string out;
    for (const BundleComponent & c : components) out += (out.empty() ? "" : ", ") + c.name + " (" + (c.kind.empty() ? "no kind" : c.kind) + ")";
    return out;
}

/** Bytes of a GGUF scalar value type (0 for strings, arrays and unknown types). */
size_t scalar_size(uint32_t type) {
    switch (type) {
        case GGUF_TYPE_UINT8:
        case GGUF_TYPE_INT8:
        case GGUF_TYPE_BOOL: return 1;
        case GGUF_TYPE_UINT16:
        case GGUF_TYPE_INT16: return 2;
        case GGUF_TYPE_UINT32:
        case GGUF_TYPE_INT32:
        case GGUF_TYPE_FLOAT32: return 4;
        case GGUF_TYPE_UINT64:
        case GGUF_TYPE_INT64:
        case GGUF_TYPE_FLOAT64: return 8;
        default: return 0;
    }
}

/** Reads the header bytes [0, data offset) that gguf_init_from_file already parsed and checked. */
class HeaderCursor {
public:
    explicit HeaderCursor(const GgufFile & f) : file_(f), bytes_(size_t(f.data_offset())) {
        if (FILE * in = std::fopen(f.path().c_str(), "rb")) {
            const size_t got = std::fread(bytes_.data(), 1, bytes_.size(), in);
            std::fclose(in);
            if (got == bytes_.size()) return;
        }
        f.fail("cannot read the GGUF header again to verify the bundle");
    }
    template <typename T>
    T next() {
        T v;
        take(&v, sizeof(T));
        return v;
    }
    std::string string() {
        const uint64_t n = next<uint64_t>();
        if (n > bytes_.size() - pos_) file_.fail("the GGUF header is cut short");
        std::string s(reinterpret_cast<const char *>(bytes_.data() + pos_), size_t(n));
        pos_ += size_t(n);
        return s;
    }
    void skip_value(uint32_t type) {
        switch (type) {
            case GGUF_TYPE_STRING: string(); return;
            case GGUF_TYPE_ARRAY: {
                const uint32_t item = next<uint32_t>();
                const uint64_t n = next<uint64_t>();
                for (uint64_t i = 0; i < n; ++i) skip_value(item);
                return;
            }
            default: {
                const size_t size = scalar_size(type);
                if (size == 0) file_.fail("the GGUF header holds an unknown value type");
                std::vector<uint8_t> sink(size);
                take(sink.data(), size);
            }
        }
    }

private:
    void take(void * out, size_t n) {
        if (n > bytes_.size() - pos_) file_.fail("the GGUF header is cut short");
        std::memcpy(out, bytes_.data() + pos_, n);
        pos_ += n;
    }
    const GgufFile & file_;
    std::vector<uint8_t> bytes_;
    size_t pos_ = 0;
};

/**
 * Each tensor's dimension count as stored (gguf keeps only ne, padded with ones, and a PyTorch shape
 * such as (1, 80, 257) stores three dimensions where ggml_n_dims says two): the digest hashes the stored count.
 */
std::map<std::string, uint32_t> stored_dim_counts(const GgufFile & f) {
    HeaderCursor h(f);
    h.next<uint32_t>();  // magic
    h.next<uint32_t>();  // version
    const uint64_t n_tensors = h.next<uint64_t>();
    const uint64_t n_kv = h.next<uint64_t>();
    for (uint64_t i = 0; i < n_kv; ++i) {
        h.string();
        h.skip_value(h.next<uint32_t>());
    }
    std::map<std::string, uint32_t> out;
    for (uint64_t i = 0; i < n_tensors; ++i) {
        const std::string name = h.string();
        const uint32_t n_dims = h.next<uint32_t>();
        if (n_dims > GGML_MAX_DIMS) f.fail("tensor " + quoted_value(name) + " declares " + std::to_string(n_dims) + " dimensions");
        for (uint32_t d = 0; d < n_dims; ++d) h.next<uint64_t>();
        h.next<uint32_t>();  // type
        h.next<uint64_t>();  // offset
        out[name] = n_dims;
    }
    return out;
}

/**
 * parakeet.cpp's content digest of a component: sha256 over its tensors in file order of the name
 * without the prefix and a zero byte, the ggml type (u32 LE), the dimension count (u32 LE), each
 * dimension (u64 LE, GGUF order) and the raw data.
 */
std::string content_digest(const GgufFile & f, const std::string & prefix) {
    gguf_context * g = f.gguf();
    const std::map<std::string, uint32_t> dim_counts = stored_dim_counts(f);
    Sha256 hash;
    std::vector<uint8_t> scratch;
    for (int64_t i = 0; i < gguf_get_n_tensors(g); ++i) {
        const char * name = gguf_get_tensor_name(g, i);
        if (!has_prefix(name, prefix)) continue;
        const ggml_tensor * t = ggml_get_tensor(f.meta(), name);
        hash.update(name + prefix.size(), std::strlen(name) - prefix.size() + 1);
        const uint32_t type = uint32_t(t->type);
        const uint32_t dims = dim_counts.at(name);
        const uint8_t type_le[4] = {uint8_t(type), uint8_t(type >> 8), uint8_t(type >> 16), uint8_t(type >> 24)};
        const uint8_t dims_le[4] = {uint8_t(dims), uint8_t(dims >> 8), uint8_t(dims >> 16), uint8_t(dims >> 24)};
        hash.update(type_le, 4);
        hash.update(dims_le, 4);
        for (uint32_t d = 0; d < dims; ++d) {
            uint8_t ne_le[8];
            for (int b = 0; b < 8; ++b) ne_le[b] = uint8_t(uint64_t(t->ne[d]) >> (8 * b));
            hash.update(ne_le, 8);
        }
        if (const uint8_t * mapped = f.tensor_data(t)) {
            hash.update(mapped, ggml_nbytes(t));
        } else {
            scratch.resize(ggml_nbytes(t));
            f.read_tensor(t, scratch.data());
            hash.update(scratch.data(), scratch.size());
        }
    }
    return hash.hex_digest();
}

}  // namespace

bool is_bundle(const GgufFile & file) { return file.stored_string("general.architecture") == "parakeet-bundle"; }

std::vector<BundleComponent> bundle_components(const GgufFile & f) {
    // Header keys are read as stored: the view may already be narrowed to a component's prefix.
    gguf_context * g = f.gguf();
    const int64_t version_id = gguf_find_key(g, "parakeet.bundle.version");
    const int64_t version = version_id >= 0 && gguf_get_kv_type(g, version_id) == GGUF_TYPE_UINT32 ? gguf_get_val_u32(g, version_id) : 0;
    if (version != kKnownVersion) {
        f.fail("parakeet.bundle.version = " + std::to_string(version) + ": this engine reads parakeet.cpp bundle format version " +
               std::to_string(kKnownVersion) + "; update the app, or use the single-model GGUF the bundle was made from");
    }
    const int64_t list_id = gguf_find_key(g, "parakeet.bundle.components");
    const bool is_list = list_id >= 0 && gguf_get_kv_type(g, list_id) == GGUF_TYPE_ARRAY && gguf_get_arr_type(g, list_id) == GGUF_TYPE_STRING;
    std::vector<BundleComponent> out;
    for (size_t i = 0; is_list && i < gguf_get_arr_n(g, list_id); ++i) {
        BundleComponent c;
        c.name = gguf_get_arr_str(g, list_id, i);
        c.kind = f.stored_string(component_key(c.name, "kind"));
        c.license = f.stored_string(component_key(c.name, "license"));
        c.source = f.stored_string(component_key(c.name, "source"));
        c.attribution = f.stored_string(component_key(c.name, "attribution"));
        c.loaded = f.name_prefix() == c.name + ".";
        const std::string prefix = c.name + ".";
        for (int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
            if (!has_prefix(gguf_get_tensor_name(g, t), prefix)) continue;
            c.tensors += 1;
            c.bytes += gguf_get_tensor_size(g, t);
        }
        out.push_back(c);
    }
    if (out.empty()) f.fail("a parakeet.cpp bundle without components (parakeet.bundle.components is missing or empty)");
    return out;
}

void read_bundle_component(GgufFile & f, const std::string & kind) {
    const bool asr_kind = kind == "asr";
    const std::string what = asr_kind ? "speech-recognition" : "voice-activity (" + kind + ")";
    const std::vector<BundleComponent> components = bundle_components(f);
    const BundleComponent * chosen = nullptr;
    for (const BundleComponent & c : components) {
        if (c.kind != kind) continue;
        if (chosen != nullptr) {
            f.fail("this parakeet.cpp bundle holds more than one " + what + " component (" + names_of(components) +
                   "); this app loads a bundle with exactly one");
        }
        chosen = &c;
    }
    if (chosen == nullptr) {
        f.fail("this parakeet.cpp bundle holds no " + what + " component, only " + names_of(components) +
               (asr_kind ? "; choose a bundle with an 'asr' component, or the ASR model's own GGUF"
                         : "; choose a bundle with a '" + kind + "' component, or a Silero VAD GGUF"));
    }
    const std::string prefix = chosen->name + ".";
    const std::string recorded = f.stored_string(component_key(chosen->name, "content_sha256"));
    if (!recorded.empty()) {
        const std::string actual = content_digest(f, prefix);
        if (actual != recorded) {
            f.fail("bundle component " + quoted_value(chosen->name) + " is damaged: its tensors hash to " + actual + ", the bundle records " +
                   quoted_value(recorded) + " (parakeet.bundle." + chosen->name + ".content_sha256); download the bundle again");
        }
    }
    f.set_name_prefix(prefix);
}

void read_bundle_asr_component(GgufFile & f) { read_bundle_component(f, "asr"); }

}  // namespace parakeet
