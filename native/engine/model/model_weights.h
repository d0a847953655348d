// Where every weight lives. Graph weights are ggml tensors in backend buffers,
// placed once at load: used in place from the mapped file on the CPU
// (zero-copy) when no conversion is needed, otherwise converted/derived on the
// host and uploaded once. The sequential decoders read plain host floats.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compute_backend.h"
#include "gguf_file.h"
#include "hparams.h"
#include "int8_decoder_vnni.h"
#include "q8_0_vnni.h"
#include "packed_weights.h"

namespace parakeet {

struct ConformerLayerWeights {
    ggml_tensor *ff1_norm_w = nullptr, *ff1_norm_b = nullptr;
    ggml_tensor *ff1_w1 = nullptr, *ff1_b1 = nullptr, *ff1_w2 = nullptr, *ff1_b2 = nullptr;
    ggml_tensor *att_norm_w = nullptr, *att_norm_b = nullptr;
    ggml_tensor *q_w = nullptr, *q_b = nullptr, *k_w = nullptr, *k_b = nullptr, *v_w = nullptr, *v_b = nullptr;
    ggml_tensor *out_w = nullptr, *out_b = nullptr, *pos_w = nullptr;
    ggml_tensor *pos_bias_u = nullptr, *pos_bias_v = nullptr;  // [dk, H]
    ggml_tensor *conv_norm_w = nullptr, *conv_norm_b = nullptr;
    ggml_tensor *pw1_w = nullptr, *pw1_b = nullptr;          // [D, 2D], [2D]
    ggml_tensor *dw_w = nullptr, *dw_b = nullptr;            // channels-fastest [K][D] (batch norm folded in), [D]
    ggml_tensor *conv_ln_w = nullptr, *conv_ln_b = nullptr;  // layer_norm variant only
    ggml_tensor *pw2_w = nullptr, *pw2_b = nullptr;          // [D, D], [D]
    ggml_tensor *ff2_norm_w = nullptr, *ff2_norm_b = nullptr;
    ggml_tensor *ff2_w1 = nullptr, *ff2_b1 = nullptr, *ff2_w2 = nullptr, *ff2_b2 = nullptr;
    ggml_tensor *out_norm_w = nullptr, *out_norm_b = nullptr;
};

struct SubsamplingStageWeights {
    ggml_tensor * dw_w = nullptr;  // [1, C, 3, 3]: memory w[(ky*3 + kx)*C + c], channels fastest
    ggml_tensor * pw_w = nullptr;  // [C, C]
    ggml_tensor * pw_b = nullptr;  // [C] (depthwise bias folded in)
};

struct EncoderWeights {
    ggml_tensor * conv0_w = nullptr;  // [16, C]: the 9 taps (ky*3 + kx), zero-padded to 16
    ggml_tensor * conv0_b = nullptr;  // [C]
    std::vector<SubsamplingStageWeights> stages;
    ggml_tensor *sub_out_w = nullptr, *sub_out_b = nullptr;
    std::vector<ConformerLayerWeights> layers;
    ggml_tensor *ctc_w = nullptr, *ctc_b = nullptr;              // [D, V+1]
    ggml_tensor *joint_enc_w = nullptr, *joint_enc_b = nullptr;  // [D, J]
    ggml_tensor *prompt1_w = nullptr, *prompt1_b = nullptr;      // [D + P, 2D] (prompt models)
    ggml_tensor *prompt2_w = nullptr, *prompt2_b = nullptr;      // [2D, D]
};

struct LstmLayer {
    int input = 0, hidden = 0;
    std::vector<float> w_ih;  // [4P][input], PyTorch gate order i, f, g, o
    std::vector<float> w_hh;  // [4P][P]
    std::vector<float> bias;  // [4P] = b_ih + b_hh
};

struct DecoderWeights {
    // transducer prediction network and joint (host, float32)
    std::vector<float> embed;  // [V+1][P], row blank = 0
    std::vector<LstmLayer> lstm;
    std::vector<float> pred_w;  // [J][P]  joint.pred
    std::vector<float> pred_b;  // [J]
    std::vector<float> out_w;   // [O][J]  joint.joint_net.2
    std::vector<float> out_b;   // [O]
    /** weightType 'int8' on an AVX2 CPU or wider: int8 twins of the products run per step (int8_decoder_vnni.h),
     *  whose F32 matrices above are then released; layer 0's input weights stay F32 (their products
     *  are cached per token id). Empty otherwise. */
    struct Int8 {
        std::vector<Int8Rows> w_ih, w_hh;  // per layer; w_ih[0] empty
        Int8Rows pred_w, out_w;
    };
    std::unique_ptr<Int8> int8;
};

struct PreprocessorWeights {
    std::vector<double> filterbank;  // [M][n_fft/2+1]
    std::vector<double> window;      // [win_length]
};

class ModelWeights {
public:
    /** Places every weight; throws Error(ModelInvalid / OutOfMemory / BadArgument). */
    ModelWeights(const GgufFile & file, const Hparams & hp, ComputeBackend & backend, const std::string & weight_type, bool packed_kernels,
                 const std::function<void(float)> & progress, const std::atomic<bool> * abort);
    ~ModelWeights();
    ModelWeights(const ModelWeights &) = delete;
    ModelWeights & operator=(const ModelWeights &) = delete;

    EncoderWeights encoder;
    /** Packed twins of matmul weights for the engine's CPU kernels (weightType auto, packedKernels); empty elsewhere. */
    PackedWeights packed;
    DecoderWeights decoder;
    PreprocessorWeights preprocessor;

    uint64_t device_bytes() const { return device_bytes_; }
    bool zero_copy() const { return zero_copy_count_ > 0; }
    const std::map<std::string, int> & placed_types() const { return placed_types_; }
    /** ModelInfo.kernels: matmul weights per registry row, and the fused ops run (per layer, or once), by their ids. */
    const std::map<std::string, int> & packed_kernels() const { return packed_kernels_; }

private:
    struct Placement;
    // The steps of a load, in order (the tensor table, tensor_table.h, says which tensors each handles).
    void place_graph_tensors(Placement & pl);
    void place_derived_tensors(Placement & pl, const GgufFile & file, const Hparams & hp);
    void allocate_and_fill(Placement & pl, const std::function<void(float)> & progress, const std::atomic<bool> * abort);
    void pack(Placement & pl, const std::atomic<bool> * abort);
    void read_host_weights(const GgufFile & file, const Hparams & hp);
    void quantize_decoder(const Hparams & hp);
    void note_fused_ops(const Hparams & hp, const ComputeBackend & backend);
    // Owned through deleters, so a load that throws half-way (cancelled, out of
    // memory, a bad tensor) frees what it had allocated.
    struct ContextFree {
        void operator()(ggml_context * c) const { ggml_free(c); }
    };
    struct BufferFree {
        void operator()(ggml_backend_buffer_t b) const { ggml_backend_buffer_free(b); }
    };
    std::vector<std::unique_ptr<ggml_context, ContextFree>> contexts_;
    std::vector<std::unique_ptr<ggml_backend_buffer, BufferFree>> buffers_;
    uint64_t device_bytes_ = 0;
    int zero_copy_count_ = 0;
    std::map<std::string, int> placed_types_;
    std::map<std::string, int> packed_kernels_;
};

/** A tensor of any readable type as float32 host data (dequantized). */
std::vector<float> read_as_f32(const GgufFile & file, const std::string & name);

}  // namespace parakeet
