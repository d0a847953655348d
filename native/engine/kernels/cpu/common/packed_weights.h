// Matmul weights that the engine's own CPU kernels run from a packed copy made
// at load (q8_0_vnni.h: Q8_0 on AVX512-VNNI; f32_avx512.h: F32 on AVX-512),
// keyed by the ggml weight tensor they stand in for. The graph builders ask
// `mul_mat` (graph_helpers.h), which takes the packed kernel when there is one.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>

#include "attention_op.h"
#include "ggml.h"
#include "weight_buffer.h"

namespace parakeet {

/**
 * What a packed matmul does to its outputs before storing them, so the elementwise passes around a
 * linear layer are not separate walks over memory: y = residual + scale · act(W·x + bias).
 * NeMo's ConformerLayer uses exactly these forms (FFN: SiLU after linear1, ½·FFN added to the
 * residual after linear2; attention and convolution outputs added to the residual).
 */
struct Epilogue {
    ggml_tensor * bias = nullptr;  // [rows] or nullptr
    bool silu = false;
    ggml_tensor * residual = nullptr;  // [rows, T] like the output, or nullptr
    float scale = 1.0f;                // applies to act(W·x + b) when there is a residual
    // ReLU and a frame mask, for the subsampling's pointwise convs (NeMo ConvSubsampling's ReLU,
    // then MaskedConvSequential zeroing the time rows outside the clip): output frame t is
    // multiplied by row_mask[t / mask_group]. Not combined with a residual.
    bool relu = false;
    ggml_tensor * row_mask = nullptr;  // F32 [frames / mask_group] of 0/1, or nullptr
    int64_t mask_group = 1;
};

/** The fixed part of an epilogue (the kernel reads bias, residual and mask from the node's sources). */
struct EpilogueMode {
    bool silu = false;
    bool residual = false;
    float scale = 1.0f;
    bool relu = false;
    int64_t mask_group = 0;  // 0: no mask

    static EpilogueMode of(const Epilogue & e) { return {e.silu, e.residual != nullptr, e.scale, e.relu, e.row_mask != nullptr ? e.mask_group : 0}; }
    bool operator==(const EpilogueMode & o) const {
        return silu == o.silu && residual == o.residual && scale == o.scale && relu == o.relu && mask_group == o.mask_group;
    }
};

/** How a packed kernel holds its activations. */
enum class ActivationFormat {
    None,         // F32, read as they are
    Q8Blocks,     // ggml Q8_0's: int8 per 32-block, fp16-rounded block scales (q8_0_vnni.h)
    ChannelRows,  // one scale and zero point per frame, uint8 (int8_channel_vnni.h)
    I16Blocks,    // 14-bit integers per 32-block, float block scales (i16_vnni.h)
    Bf16Tiles,    // BF16 in AMX tile order, 16 frames × 32 inputs per KiB, frames padded to 16 (amx_bf16.h; rows written by amx_tile_row)
};

class PackedMatmul {
public:
    virtual ~PackedMatmul() = default;
    /**
     * W·x as graph nodes: x [cols, T] F32 (rows contiguous) → [rows, T] F32, with the epilogue
     * applied; nodes named after `weight_name`.
     */
    virtual ggml_tensor * apply(ggml_context * ctx, ggml_tensor * x, const char * weight_name, const Epilogue & epilogue) const = 0;
    /**
     * The activations this kernel quantizes its input into (ActivationFormat), so that whoever
     * produces x can write that form directly (a fused layer norm, layer_norm_op.h) and several
     * matmuls of one input share it; None: the kernel reads F32.
     */
    virtual ActivationFormat activation_format() const { return ActivationFormat::None; }
    /** x [cols, T] F32 in activation_format() (rows: frames), for apply_quantized; nullptr for None. */
    virtual ggml_tensor * quantize(ggml_context * ctx, ggml_tensor * x, const char * weight_name) const {
        (void)ctx, (void)x, (void)weight_name;
        return nullptr;
    }
    /** W·xq for xq already in activation_format() (rows: frames). Only for kernels that have one. */
    virtual ggml_tensor * apply_quantized(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue) const {
        (void)ctx, (void)weight_name, (void)epilogue;
        return xq;  // unreachable: callers check activation_format() first
    }
    /**
     * apply_quantized with the outputs written straight in activation format `out` (rows: frames, as
     * quantize() of the F32 outputs would write them, bit for bit) for the next matmul to read: the
     * F32 rows and their separate quantize pass never exist. nullptr where this kernel cannot (then
     * apply_quantized and the next matmul's quantize()).
     */
    virtual ggml_tensor * apply_quantized_to(ggml_context * ctx, ggml_tensor * xq, const char * weight_name, const Epilogue & epilogue,
                                             ActivationFormat out) const {
        (void)ctx, (void)xq, (void)weight_name, (void)epilogue, (void)out;
        return nullptr;
    }
    virtual size_t bytes() const = 0;
    /** Name in ModelInfo.weightTypes, e.g. "q8_0_vnni". */
    virtual const char * layout_name() const = 0;
};

/**
 * linear_pos split by the table's sin and cos columns (rel_pos_projection.h says why): the engine's
 * F32 or per-channel int8 kernels on the two halves, then one pass that forms all 2T−1 rows.
 */
class RelPosProjection {
public:
    RelPosProjection(std::unique_ptr<PackedMatmul> sin_columns, std::unique_ptr<PackedMatmul> cos_columns)
            : sin_(std::move(sin_columns)),
              cos_(std::move(cos_columns)) {}

    /**
     * W·pe as [D, 2T−1] (the full table's row order) from `halves` [D, T]: row p = sin(p·ω_i) for
     * i < D/2, then cos(p·ω_i) (relative_position_halves).
     */
    ggml_tensor * apply(ggml_context * ctx, ggml_tensor * halves, const char * weight_name) const;
    size_t bytes() const { return sin_->bytes() + cos_->bytes(); }

private:
    std::unique_ptr<PackedMatmul> sin_, cos_;
};

class Q8RelPosProjection;  // q8_0_rel_pos_vnni.h

class PackedWeights {
public:
    /** One buffer for every packed matrix of the model (huge pages, no per-matrix rounding). */
    void reserve(size_t bytes) { arena_ = WeightBuffer<uint8_t>(bytes); }
    /** The next `bytes` (rounded up to 64) of the arena. */
    uint8_t * take(size_t bytes) {
        const size_t n = (bytes + 63) / 64 * 64;
        if (used_ + n > arena_.size()) return nullptr;
        uint8_t * p = arena_.data() + used_;
        used_ += n;
        return p;
    }
    void add(const ggml_tensor * weight, std::unique_ptr<PackedMatmul> packed) { table_[weight] = std::move(packed); }
    /** linear_pos weights split by column (rel_pos_projection.h), kept apart from the table. */
    void add_rel_pos(const ggml_tensor * weight, std::unique_ptr<RelPosProjection> halves) { rel_pos_[weight] = std::move(halves); }
    const RelPosProjection * rel_pos(const ggml_tensor * weight) const {
        auto it = rel_pos_.find(weight);
        return it == rel_pos_.end() ? nullptr : it->second.get();
    }
    bool has_rel_pos() const { return !rel_pos_.empty(); }
    /** Q8_0 linear_pos weights packed for their halves kernel (q8_0_rel_pos_vnni.h), kept apart from the table. */
    void add_q8_rel_pos(const ggml_tensor * weight, std::shared_ptr<const Q8RelPosProjection> halves, size_t bytes) {
        q8_rel_pos_[weight] = {std::move(halves), bytes};
    }
    const Q8RelPosProjection * q8_rel_pos(const ggml_tensor * weight) const {
        auto it = q8_rel_pos_.find(weight);
        return it == q8_rel_pos_.end() ? nullptr : it->second.matrix.get();
    }
    bool has_q8_rel_pos() const { return !q8_rel_pos_.empty(); }
    /** The fused attention op runs on 14-bit integers (the file's matmuls are quantized; attention_op.h). */
    void set_attention_products(AttentionProducts products) { attention_products_ = products; }
    AttentionProducts attention_products() const { return attention_products_; }
    const PackedMatmul * find(const ggml_tensor * weight) const {
        auto it = table_.find(weight);
        return it == table_.end() ? nullptr : it->second.get();
    }
    size_t count() const { return table_.size() + rel_pos_.size() + q8_rel_pos_.size(); }
    size_t bytes() const {
        size_t n = 0;
        for (const auto & e : table_) n += e.second->bytes();
        for (const auto & e : rel_pos_) n += e.second->bytes();
        for (const auto & e : q8_rel_pos_) n += e.second.bytes;
        return n;
    }

private:
    WeightBuffer<uint8_t> arena_;
    size_t used_ = 0;
    AttentionProducts attention_products_ = AttentionProducts::F32;
    std::unordered_map<const ggml_tensor *, std::unique_ptr<PackedMatmul>> table_;
    std::unordered_map<const ggml_tensor *, std::unique_ptr<RelPosProjection>> rel_pos_;
    struct Q8Halves {
        std::shared_ptr<const Q8RelPosProjection> matrix;  // shared_ptr: the type is only declared here
        size_t bytes;
    };
    std::unordered_map<const ggml_tensor *, Q8Halves> q8_rel_pos_;
};

}  // namespace parakeet
