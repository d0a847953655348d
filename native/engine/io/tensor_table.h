// The one table of every tensor the engine reads from a Parakeet GGUF (spec
// §1.5): its name, its shape from the hyper-parameters, when a file must hold
// it, and what the engine does with it. Validation (model_schema.cpp) checks
// files against it; placement (model_weights.cpp) puts the graph tensors it
// names where the graphs find them. A new tensor is one row here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hparams.h"
#include "model_weights.h"

namespace parakeet {

/** What the engine does with a tensor. */
enum class TensorRole {
    Matmul,   // a graph matmul weight [in, out]: kept, converted, repacked or packed as LoadParams::weight_type says
    Vector,   // a graph tensor used as stored, in F32 (norms, biases, positional biases)
    Derived,  // read at load into a graph tensor computed from it (folded or reordered; model_weights.cpp)
    Host,     // read into host memory (filterbank and window, prediction network, joint)
};

/**
 * What a Matmul row's product feeds, which the kernel choice (kernels/cpu/registry.h) reads:
 * Exact products run in F32 arithmetic on the file's values under 'auto' and 'i16'; RelPos ones may
 * run as sin/cos column halves where the fused attention op reads them (rel_pos_projection.h).
 */
enum class MatmulUse {
    Plain,
    // The transducer's encoder projection feeds the greedy decisions directly (as do the prediction
    // network and the joint, host-side F32): on 8- or 14-bit activations its rounding flipped
    // decisions the float64 reference takes clearly (1 % of the encoder's multiply–adds).
    Exact,
    RelPos,  // linear_pos of the relative positional encoding
};

/** How many of a row there are: one, or one per subsampling stage (1 … stages−1), encoder layer or LSTM layer. */
enum class TensorScope { Model, SubsamplingStage, EncoderLayer, PredictionLayer };

/** When a file holds the tensor. */
enum class TensorNeed {
    Always,
    EncoderBias,    // exactly when parakeet.encoder.use_bias (present without it is an error too)
    BatchNormConv,  // conv_norm_type batch_norm
    LayerNormConv,  // conv_norm_type layer_norm
    Ctc,            // the model has a CTC head
    Transducer,     // the model has a transducer head
    Prompt,         // a prompt-conditioned model (parakeet.prompt.present)
};

using TensorShape = std::vector<int64_t>;

struct TensorSpec {
    /**
     * Name pattern: "{i}" is the scope's index, "{dw}" / "{pw}" a subsampling stage's depthwise (3i−1) and
     * pointwise (3i) conv index, "{ctc}" the CTC head's prefix.
     */
    const char * pattern;
    TensorScope scope;
    TensorNeed need;
    TensorRole role;
    TensorShape (*shape)(const Hparams &);  // as in the file, ggml order (fastest first); size-1 axes are not compared
    // Where a placed Matmul / Vector tensor goes (the one matching the scope; none for Derived / Host).
    ggml_tensor * EncoderWeights::*model_slot = nullptr;
    ggml_tensor * SubsamplingStageWeights::*stage_slot = nullptr;
    ggml_tensor * ConformerLayerWeights::*layer_slot = nullptr;
    MatmulUse matmul = MatmulUse::Plain;  // Matmul rows only
};

/** Every row, in the order files are checked. */
const std::vector<TensorSpec> & tensor_table();

/** One row bound to one tensor of a model with given hyper-parameters. */
struct TensorUse {
    const TensorSpec * spec = nullptr;
    std::string name;
    int index = 0;  // the scope's index (0 for Model scope)
    TensorShape shape;
    bool present = true;  // false: the file must not hold it (an encoder bias without use_bias)
};

/** The table for these hyper-parameters: rows whose need holds, scopes expanded (a layer's rows together). */
std::vector<TensorUse> tensors_for(const Hparams & hp);

/** A Matmul row's [in, out]: the product of every axis but the last, and the last. */
inline void matmul_dims(const TensorShape & shape, int64_t & in, int64_t & out) {
    in = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i) in *= shape[i];
    out = shape.empty() ? 1 : shape.back();
}

}  // namespace parakeet
