#include "prompt_kernel.h"

#include "graph_helpers.h"

namespace parakeet {

ggml_tensor * build_prompt_kernel(ggml_context * ctx, const EncoderWeights & w, ggml_tensor * x, ggml_tensor * onehot) {
    // NeMo: torch.cat([encoded, prompt], dim=-1) → prompt_kernel (Linear, ReLU, Linear). The weights are
    // F32 in published files and small next to the encoder, so they run on ggml's matmul as stored.
    ggml_tensor * joined = ggml_concat(ctx, x, onehot, 0);  // [D + P, T]
    ggml_tensor * hidden = ggml_relu(ctx, linear(ctx, joined, w.prompt1_w, w.prompt1_b));
    return linear(ctx, hidden, w.prompt2_w, w.prompt2_b);
}

std::vector<float> prompt_onehot(const Hparams & hp, int index, int frames) {
    std::vector<float> rows(size_t(frames) * size_t(hp.num_prompts), 0.0f);
    for (int t = 0; t < frames; ++t) rows[size_t(t) * size_t(hp.num_prompts) + size_t(index)] = 1.0f;
    return rows;
}

}  // namespace parakeet
