// Runs the encoder graph for one mel spectrogram on the model's device.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "compute_backend.h"
#include "hparams.h"
#include "model_weights.h"
#include "position_table.h"
#include "preprocessor.h"

namespace parakeet {

enum class EncoderHead { None, Ctc, JointEnc };

struct EncoderOutput {
    int frames = 0;  // T' (spatial)
    int valid = 0;   // Tv (NeMo encoded_len)
    int dim = 0;
    std::vector<float> encoded;  // [T'][D] when requested
    int head_dim = 0;
    std::vector<float> head;  // [T'][V+1] CTC logits, or [T'][J] joint.enc projection
    std::vector<std::string> devices;
};

/**
 * Host buffers a caller keeps across runs (a diarizer stream's chunks, all of one shape), so that a run
 * reuses their memory instead of allocating megabyte-sized vectors each time.
 */
struct EncoderBuffers {
    std::vector<float> image;        // one subsampling tile's mel rows [rows][M]
    std::vector<float> subsampled;   // pre_encode's rows [valid][D]
    std::vector<float> layer_input;  // encode_pre_encoded's rows, zero-padded [T'][D]
    EncoderOutput output;            // encode_pre_encoded's result
};

class Encoder {
public:
    Encoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend);
    /** prompt_index: prompt models' one-hot position for the joint head (−1 = the dictionary's "auto"). */
    EncoderOutput run(const MelSpectrogram & mel, EncoderHead head, bool keep_encoded, const std::atomic<bool> * abort,
                      EncoderProfile * profile = nullptr, int prompt_index = -1);

    /**
     * NeMo ConformerEncoder.pre_encode (with the √d_model xscale of its positional encoding): the valid
     * subsampled rows of a mel spectrogram, into buffers.subsampled [valid][D]. Sortformer keeps these in
     * its speaker cache and FIFO.
     */
    void pre_encode(const MelSpectrogram & mel, int & valid, EncoderBuffers & buffers, const std::atomic<bool> * abort);
    /**
     * The conformer layers over rows [n_rows][D] made by pre_encode (NeMo's bypass_pre_encode=True), into
     * buffers.output (`encoded` [n_rows][D]); `rows` may not point into buffers.layer_input.
     */
    const EncoderOutput & encode_pre_encoded(const float * rows, int n_rows, EncoderBuffers & buffers, const std::atomic<bool> * abort);

private:
    /**
     * Step 1 of run(): the subsampling of `mel_frames` mel frames (zero past the clip) into buffers.subsampled
     * [frames][D]; buffers.image holds each tile's input.
     */
    void subsample_padded(const MelSpectrogram & mel, int mel_frames, int & frames, int & valid, std::vector<std::string> & devices,
                          EncoderBuffers & buffers, const std::atomic<bool> * abort, EncoderProfile * profile);
    /** Step 2 of run(): the conformer layers and the head over `frames` subsampled rows, `valid` of them real, into `out`. */
    void run_layers(const std::vector<float> & subsampled, int frames, int valid, int out_frames, EncoderHead head, bool keep_encoded,
                    const std::atomic<bool> * abort, EncoderProfile * profile, int prompt_index, EncoderOutput & out);
    /** How this model's attention reads the kept projections. */
    PositionTable::Layout position_layout() const;
    /**
     * Makes position_table_ hold `frames` frames (or more), computing every layer's projection once (in
     * the run's profile); false, the table empty, where there was no memory for it.
     */
    bool fill_position_table(int frames, const std::atomic<bool> * abort, EncoderProfile * profile);

    const Hparams & hp_;
    const EncoderWeights & w_;
    const PackedWeights & packed_;
    ComputeBackend & backend_;
    std::vector<uint8_t> graph_meta_;  // reused metadata arena for graph building
    PositionTable position_table_;     // linear_pos of the positional encoding, kept between runs
};

}  // namespace parakeet
