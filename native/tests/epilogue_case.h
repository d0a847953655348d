// The packed matmuls' epilogues (packed_weights.h) as test cases: the ggml tensors a kernel reads and
// the same arithmetic in float64 for the reference (SiLU as x·σ(x), NeMo's Swish).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "packed_weights.h"

enum class Ending { None, BiasSilu, Residual, ReluMask };

struct EpilogueCase {
    Ending ending;
    int64_t rows;
    std::vector<float> bias, residual, mask;
    parakeet::Epilogue epilogue;

    /** Random bias and residual, every third frame masked (ReluMask), the residual scaled by ½. */
    EpilogueCase(ggml_context * ctx, Ending which, int64_t out_rows, int64_t frames, std::mt19937 & rng)
            : ending(which),
              rows(out_rows),
              bias(static_cast<size_t>(out_rows)),
              residual(static_cast<size_t>(out_rows * frames)),
              mask(static_cast<size_t>(frames)) {
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (float & v : bias) v = 0.3f * normal(rng);
        for (float & v : residual) v = normal(rng);
        for (int64_t t = 0; t < frames; ++t) mask[size_t(t)] = t % 3 == 1 ? 0.0f : 1.0f;
        if (ending == Ending::BiasSilu || ending == Ending::ReluMask) {
            epilogue.bias = tensor_of(ctx, bias, rows, 1);
            epilogue.silu = ending == Ending::BiasSilu;
            epilogue.relu = ending == Ending::ReluMask;
        }
        if (ending == Ending::Residual) {
            epilogue.residual = tensor_of(ctx, residual, rows, frames);
            epilogue.scale = 0.5f;
        }
        if (ending == Ending::ReluMask) epilogue.row_mask = tensor_of(ctx, mask, frames, 1);
    }

    /** The epilogue of output `o` of frame `t` whose product is `v`, in float64. */
    double apply(double v, int64_t t, int64_t o) const {
        switch (ending) {
            case Ending::None: return v;
            case Ending::BiasSilu: return (v + bias[size_t(o)]) / (1.0 + std::exp(-(v + bias[size_t(o)])));
            case Ending::Residual: return residual[size_t(t * rows + o)] + 0.5 * v;
            case Ending::ReluMask: return mask[size_t(t)] * std::max(0.0, v + bias[size_t(o)]);
        }
        return v;
    }

    /**
     * A kernel's node `y` ([rows, frames] F32), computed on `threads` threads, against `product`
     * (float64, the same order) through this epilogue: the largest |got − want| / (1 + |want|).
     */
    double worst_error(ggml_context * ctx, ggml_tensor * y, const std::vector<double> & product, int64_t frames, int threads) const {
        ggml_cgraph * graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, y);
        CHECK_EQ(int(ggml_graph_compute_with_ctx(ctx, graph, threads)), int(GGML_STATUS_SUCCESS));
        double worst = 0.0;
        for (int64_t t = 0; t < frames; ++t) {
            for (int64_t o = 0; o < rows; ++o) {
                const double want = apply(product[size_t(t * rows + o)], t, o);
                const double got = static_cast<const float *>(y->data)[t * rows + o];
                worst = std::max(worst, std::fabs(got - want) / (1.0 + std::fabs(want)));
            }
        }
        return worst;
    }

private:
    static ggml_tensor * tensor_of(ggml_context * ctx, const std::vector<float> & values, int64_t ne0, int64_t ne1) {
        ggml_tensor * t = ne1 == 1 ? ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne0) : ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
        std::memcpy(t->data, values.data(), values.size() * sizeof(float));
        return t;
    }
};
