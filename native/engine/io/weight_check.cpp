#include "weight_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {
namespace {

constexpr size_t kNone = size_t(-1);

/**
 * Index of the first element whose exponent bits are all ones (NaN or ±inf), or kNone. The
 * branch-free inner loop over chunks vectorizes; the position is searched only in a bad chunk.
 */
template <typename Bits>
size_t first_non_finite_bits(const uint8_t * data, size_t n, Bits exponent_mask) {
    constexpr size_t kChunk = 4096;
    for (size_t begin = 0; begin < n; begin += kChunk) {
        const size_t end = begin + kChunk < n ? begin + kChunk : n;
        unsigned bad = 0;
        for (size_t i = begin; i < end; ++i) {
            Bits v;
            std::memcpy(&v, data + i * sizeof(Bits), sizeof(Bits));
            bad |= unsigned((v & exponent_mask) == exponent_mask);
        }
        if (bad == 0) continue;
        for (size_t i = begin; i < end; ++i) {
            Bits v;
            std::memcpy(&v, data + i * sizeof(Bits), sizeof(Bits));
            if ((v & exponent_mask) == exponent_mask) return i;
        }
    }
    return kNone;
}

/**
 * Quantized blocks whose values are finite exactly when their F16 scales are (the integers
 * times a finite scale, plus a finite minimum, stay far inside float range). Offsets and
 * sizes of ggml-common.h; a type whose block size differs is scanned the slow way instead.
 */
struct ScaleLayout {
    ggml_type type;
    size_t block_bytes;
    size_t scale_offsets[2];
    int n_scales;
};
constexpr ScaleLayout kScaleLayouts[] = {
        {GGML_TYPE_Q8_0, 34, {0, 0}, 1}, {GGML_TYPE_Q4_0, 18, {0, 0}, 1},  {GGML_TYPE_Q4_1, 20, {0, 2}, 2},  {GGML_TYPE_Q5_0, 22, {0, 0}, 1},
        {GGML_TYPE_Q5_1, 24, {0, 2}, 2}, {GGML_TYPE_Q4_K, 144, {0, 2}, 2}, {GGML_TYPE_Q5_K, 176, {0, 2}, 2}, {GGML_TYPE_Q6_K, 210, {208, 208}, 1},
};

/** First bad element (its block's first element for scaled types), or kNone. */
size_t first_non_finite(const ggml_tensor * t, const uint8_t * data) {
    const size_t n = size_t(ggml_nelements(t));
    switch (t->type) {
        case GGML_TYPE_F32: return first_non_finite_bits<uint32_t>(data, n, 0x7f800000u);
        case GGML_TYPE_F16: return first_non_finite_bits<uint16_t>(data, n, uint16_t(0x7c00));
        case GGML_TYPE_BF16: return first_non_finite_bits<uint16_t>(data, n, uint16_t(0x7f80));
        default: break;
    }
    const size_t block_bytes = ggml_type_size(t->type);
    const size_t block_elems = size_t(ggml_blck_size(t->type));
    const size_t n_blocks = ggml_nbytes(t) / block_bytes;
    for (const ScaleLayout & layout : kScaleLayouts) {
        if (layout.type != t->type || layout.block_bytes != block_bytes) continue;
        for (size_t b = 0; b < n_blocks; ++b) {
            for (int s = 0; s < layout.n_scales; ++s) {
                uint16_t h;
                std::memcpy(&h, data + b * block_bytes + layout.scale_offsets[s], sizeof(h));
                if ((h & 0x7c00) == 0x7c00) return b * block_elems;
            }
        }
        return kNone;
    }
    // Any other readable type: dequantize a few rows at a time and look.
    const ggml_type_traits * traits = ggml_get_type_traits(t->type);
    if (traits->to_float == nullptr) return kNone;  // validate_tensors refuses such types
    const size_t row_elems = size_t(t->ne[0]);
    const size_t row_bytes = ggml_row_size(t->type, t->ne[0]);
    const size_t rows = n / row_elems;
    std::vector<float> buf(row_elems);
    for (size_t r = 0; r < rows; ++r) {
        traits->to_float(data + r * row_bytes, buf.data(), int64_t(row_elems));
        for (size_t i = 0; i < row_elems; ++i) {
            if (!std::isfinite(buf[i])) return r * row_elems + i;
        }
    }
    return kNone;
}

}  // namespace

void check_weights_finite(const GgufFile & file, const std::atomic<bool> * abort, int n_threads) {
    std::vector<const ggml_tensor *> tensors;
    for (ggml_tensor * t = ggml_get_first_tensor(file.meta()); t != nullptr; t = ggml_get_next_tensor(file.meta(), t)) tensors.push_back(t);
    auto fail_at = [&](const ggml_tensor * t, size_t at) {
        file.fail(std::string("tensor '") + ggml_get_name(t) + "' holds NaN or infinite values (the first at element " + std::to_string(at) +
                  "): the weights are damaged; download or export the model again");
    };
    auto aborted = [&] { return abort != nullptr && abort->load(); };

    if (file.mapping() == nullptr) {
        // Without a mapping: one tensor at a time through a reused buffer.
        std::vector<uint8_t> copy;
        for (const ggml_tensor * t : tensors) {
            if (aborted()) throw Error(ErrorCode::Aborted, "model loading cancelled");
            copy.resize(ggml_nbytes(t));
            file.read_tensor(t, copy.data());
            const size_t at = first_non_finite(t, copy.data());
            if (at != kNone) fail_at(t, at);
        }
        return;
    }
    // Mapped: the scan runs at memory bandwidth, so the tensors are shared out among the load's threads.
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::min<size_t>({n_threads > 0 ? size_t(n_threads) : hw, hw, 8, tensors.size()});
    std::atomic<size_t> next{0};
    std::atomic<size_t> first_bad{tensors.size()};  // lowest tensor index found bad: the message is the same every time
    std::vector<size_t> bad_at(tensors.size(), kNone);
    auto work = [&] {
        for (size_t i = next++; i < tensors.size(); i = next++) {
            if (aborted() || i > first_bad.load()) return;
            const size_t at = first_non_finite(tensors[i], file.tensor_data(tensors[i]));
            if (at == kNone) continue;
            bad_at[i] = at;
            size_t seen = first_bad.load();
            while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {}
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (std::thread & t : pool) t.join();
    if (aborted()) throw Error(ErrorCode::Aborted, "model loading cancelled");
    const size_t bad = first_bad.load();
    if (bad < tensors.size()) fail_at(tensors[bad], bad_at[bad]);
}

}  // namespace parakeet
