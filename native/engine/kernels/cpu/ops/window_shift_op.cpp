#include "window_shift_op.h"

#include <cstring>

namespace parakeet {
namespace {

// op_params: ggml's custom-op parameters (a function, a count, a pointer) come first.
constexpr size_t kShiftParamsAt = 12 * sizeof(int32_t);
static_assert(3 * sizeof(void *) <= kShiftParamsAt && kShiftParamsAt + 2 * sizeof(int32_t) <= GGML_MAX_OP_PARAMS, "op_params room");

void shift_op(ggml_tensor * dst, int ith, int, void *) {
    if (ith != 0) return;  // one memmove: the ranges overlap, so they cannot be split among threads
    ggml_tensor * window = dst->src[0];
    int32_t from = 0, kept = 0;
    std::memcpy(&from, reinterpret_cast<const char *>(dst->op_params) + kShiftParamsAt, sizeof(from));
    std::memcpy(&kept, reinterpret_cast<const char *>(dst->op_params) + kShiftParamsAt + sizeof(from), sizeof(kept));
    char * base = static_cast<char *>(window->data);
    std::memmove(base, base + size_t(from) * window->nb[1], size_t(kept) * window->nb[1]);
}

}  // namespace

ggml_tensor * shift_window_in_place(ggml_context * ctx, ggml_tensor * window, int64_t from, int64_t kept) {
    GGML_ASSERT(window->type == GGML_TYPE_F32 && window->nb[1] == size_t(window->ne[0]) * sizeof(float) && from >= 0 && kept >= 0 &&
                from + kept <= window->ne[1]);
    ggml_tensor * args[] = {window};
    ggml_tensor * node = ggml_custom_4d(ctx, GGML_TYPE_F32, 1, 1, 1, 1, args, 1, shift_op, 1, nullptr);
    const int32_t params[2] = {int32_t(from), int32_t(kept)};
    std::memcpy(reinterpret_cast<char *>(node->op_params) + kShiftParamsAt, params, sizeof(params));
    ggml_set_name(node, "window_shift");
    return node;
}

}  // namespace parakeet
