#include "position_table.h"

#include <new>

#include "attention_op.h"
#include "ggml-alloc.h"

namespace parakeet {

PositionTable::~PositionTable() { clear(); }

void PositionTable::clear() {
    if (buffer_ != nullptr) ggml_backend_buffer_free(buffer_);
    if (ctx_ != nullptr) ggml_free(ctx_);
    buffer_ = nullptr;
    ctx_ = nullptr;
    layers_.clear();
    frames_ = 0;
}

size_t PositionTable::bytes_for(Layout layout, int frames, int64_t d, size_t layers) {
    const size_t per_layer = layout == Layout::F32Rows ? size_t(2 * int64_t(frames) - 1) * size_t(d) * sizeof(float)
                                                       : size_t(amx_position_columns(frames)) * size_t(d / 2) * sizeof(int32_t);
    return per_layer * layers;
}

void PositionTable::allocate(Layout layout, int frames, int64_t d, size_t layers, ggml_backend_buffer_type_t host) {
    clear();
    ggml_init_params params = {ggml_tensor_overhead() * (layers + 1), nullptr, true};
    ctx_ = ggml_init(params);
    if (ctx_ == nullptr) throw std::bad_alloc();
    for (size_t i = 0; i < layers; ++i) {
        ggml_tensor * t = layout == Layout::F32Rows ? ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, d, 2 * int64_t(frames) - 1)
                                                    : ggml_new_tensor_2d(ctx_, GGML_TYPE_I32, amx_position_columns(frames), d / 2);
        ggml_format_name(t, "position_table.%zu", i);
        layers_.push_back(t);
    }
    buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_, host);
    if (buffer_ == nullptr) {
        clear();
        throw std::bad_alloc();
    }
    frames_ = frames;
    d_ = d;
    layout_ = layout;
}

ggml_tensor * PositionTable::view(ggml_context * ctx, size_t i, int frames) const {
    ggml_tensor * t = layers_[i];
    if (layout_ == Layout::AmxWords) return ggml_view_2d(ctx, t, 2 * int64_t(frames) - 1, t->ne[1], t->nb[1], size_t(frames_ - frames) * t->nb[0]);
    return ggml_view_2d(ctx, t, t->ne[0], 2 * int64_t(frames) - 1, t->nb[1], size_t(frames_ - frames) * t->nb[1]);
}

}  // namespace parakeet
