// `parakeet quantize`: re-quantizes the matmul weights of a model file, as
// parakeet.cpp's `parakeet-cli quantize` does (spec §1.7: allowlisted tensors
// with ne0, ne1 ≥ 32 and ne0 divisible by the block size; all else copied).
#include <cstdio>
#include <cstring>
#include <vector>

#include "gguf_file.h"
#include "log.h"
#include "model_schema.h"
#include "model_weights.h"
#include "parakeet/parakeet.h"

namespace parakeet {
namespace {

ggml_type quant_type(const std::string & name) {
    static const struct {
        const char * name;
        ggml_type type;
    } types[] = {
            {"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16}, {"q8_0", GGML_TYPE_Q8_0}, {"q5_0", GGML_TYPE_Q5_0},
            {"q4_0", GGML_TYPE_Q4_0}, {"q6_k", GGML_TYPE_Q6_K}, {"q5_k", GGML_TYPE_Q5_K}, {"q4_k", GGML_TYPE_Q4_K},
    };
    for (const auto & t : types) {
        if (name == t.name) return t.type;
    }
    throw Error(ErrorCode::BadArgument, "unknown quantization type '" + name + "' (expected f32, f16, bf16, q8_0, q5_0, q4_0, q6_k, q5_k or q4_k)");
}

}  // namespace

void quantize_model_file(const std::string & in_path, const std::string & out_path, const std::string & type_name) {
    const ggml_type target = quant_type(type_name);
    std::unique_ptr<GgufFile> in = GgufFile::open(in_path, true);
    const Hparams hp = read_hparams(*in);
    validate_tensors(*in, hp);

    gguf_context * out = gguf_init_empty();
    struct Cleanup {
        gguf_context * g;
        std::vector<ggml_context *> ctxs;
        ~Cleanup() {
            gguf_free(g);
            for (ggml_context * c : ctxs) ggml_free(c);
        }
    } cleanup{out, {}};
    gguf_set_kv(out, in->gguf());

    const int64_t n = gguf_get_n_tensors(in->gguf());
    ggml_init_params params = {ggml_tensor_overhead() * size_t(n + 1), nullptr, true};
    ggml_context * meta = ggml_init(params);
    cleanup.ctxs.push_back(meta);
    std::vector<std::vector<uint8_t>> data(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const char * name = gguf_get_tensor_name(in->gguf(), i);
        const ggml_tensor * src = in->tensor(name);
        ggml_type type = src->type;
        const bool eligible = is_quantizable_name(name) && ggml_n_dims(src) >= 2 && src->ne[0] >= 32 && src->ne[1] >= 32 &&
                              src->ne[0] % ggml_blck_size(target) == 0;
        if (eligible) type = target;
        ggml_tensor * t = ggml_new_tensor(meta, type, GGML_MAX_DIMS, src->ne);
        ggml_set_name(t, name);
        std::vector<uint8_t> & bytes = data[size_t(i)];
        if (type == src->type) {
            bytes.resize(ggml_nbytes(src));
            in->read_tensor(src, bytes.data());
        } else {
            const std::vector<float> f = read_as_f32(*in, name);
            bytes.resize(ggml_nbytes(t));
            const int64_t rows = ggml_nelements(src) / src->ne[0];
            ggml_quantize_chunk(type, f.data(), bytes.data(), 0, rows, src->ne[0], nullptr);
        }
        gguf_add_tensor(out, t);
        gguf_set_tensor_data(out, name, bytes.data());
    }
    // Written to a temporary name and renamed, so a failure never leaves a half file.
    const std::string tmp = out_path + ".partial";
    if (!gguf_write_to_file(out, tmp.c_str(), false)) {
        std::remove(tmp.c_str());
        throw Error(ErrorCode::BadArgument, "could not write " + tmp + " (disk full, missing folder or no permission?)");
    }
    std::remove(out_path.c_str());
    if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
        throw Error(ErrorCode::BadArgument, "could not rename " + tmp + " to " + out_path);
    }
}

}  // namespace parakeet
