// A packed matrix's product as the graph runs it, for the tests that compare kernels of one layout.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "packed_weights.h"

/** W·x (x [frames][m.cols()]) through m's graph node on `threads` threads: [frames][m.rows()]. */
template <typename Matrix>
std::vector<float> packed_product(const Matrix & m, const std::vector<float> & x, int64_t frames, int threads) {
    ggml_init_params params = {size_t(16) << 20, nullptr, false};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * xt = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, m.cols(), frames);
    std::memcpy(xt->data, x.data(), x.size() * sizeof(float));
    ggml_tensor * y = m.apply(ctx, xt, "w", parakeet::Epilogue{});
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);
    CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
    std::vector<float> out(size_t(m.rows() * frames));
    for (int64_t t = 0; t < frames; ++t) {
        std::memcpy(out.data() + t * m.rows(), static_cast<const char *>(y->data) + size_t(t) * y->nb[1], size_t(m.rows()) * sizeof(float));
    }
    ggml_free(ctx);
    return out;
}
