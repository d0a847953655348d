// One sample rate's Silero VAD weights (spec §8, tensors `vad16k.*` / `vad8k.*`) and the per-chunk graph.
#pragma once

#include <array>
#include <string>

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf_file.h"

namespace parakeet {

class SileroWeights {
public:
    /** Reads and checks one rate's KVs and 15 tensors; throws Error(ModelInvalid) naming what is wrong. */
    SileroWeights(const GgufFile & file, int sample_rate);
    ~SileroWeights();
    SileroWeights(const SileroWeights &) = delete;
    SileroWeights & operator=(const SileroWeights &) = delete;

    int sample_rate = 0;
    int chunk_samples = 0;    // 512 / 256 new samples per call
    int context_samples = 0;  // 64 / 32 samples of the previous chunk in front
    int n_fft = 0;            // 256 / 128
    int hop = 0;              // 128 / 64
    int right_pad = 0;        // 64 / 32 samples of right reflect padding
    int hidden = 0;           // LSTM width (128)
    bool f16 = false;         // conv and LSTM weights stored as F16

    ggml_tensor * stft_basis = nullptr;  // ne [n_fft, 1, 2·bins]: windowed DFT, real rows then imaginary
    std::array<ggml_tensor *, 4> conv_w{};
    std::array<ggml_tensor *, 4> conv_b{};
    std::array<int, 4> conv_stride{};
    ggml_tensor * w_ih = nullptr;  // ne [hidden, 4·hidden], gates i, f, g, o (PyTorch LSTMCell order)
    ggml_tensor * w_hh = nullptr;
    ggml_tensor * b_ih = nullptr;
    ggml_tensor * b_hh = nullptr;
    ggml_tensor * out_w = nullptr;  // ne [1, hidden, 1]
    ggml_tensor * out_b = nullptr;  // ne [1]

private:
    ggml_context * ctx_ = nullptr;
    ggml_backend_buffer_t buffer_ = nullptr;
};

/** What one chunk's graph reads and writes (tensors in the chunk's own context). */
struct SileroChunkGraph {
    ggml_cgraph * graph = nullptr;
    ggml_tensor * window = nullptr;  // in: context | chunk samples
    ggml_tensor * h_in = nullptr;
    ggml_tensor * c_in = nullptr;
    ggml_tensor * prob = nullptr;  // out: speech probability
    ggml_tensor * h_out = nullptr;
    ggml_tensor * c_out = nullptr;
};

/** Builds Silero's forward pass for one chunk (silero_vad's VADDecoderRNNJIT over its STFT encoder) in ctx. */
SileroChunkGraph build_silero_chunk_graph(ggml_context * ctx, const SileroWeights & w);

}  // namespace parakeet
