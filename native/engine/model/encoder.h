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

class Encoder {
public:
    Encoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend);
    /** prompt_index: prompt models' one-hot position for the joint head (−1 = the dictionary's "auto"). */
    EncoderOutput run(const MelSpectrogram & mel, EncoderHead head, bool keep_encoded, const std::atomic<bool> * abort,
                      EncoderProfile * profile = nullptr, int prompt_index = -1);

    /**
     * NeMo ConformerEncoder.pre_encode (with the √d_model xscale of its positional encoding): the valid
     * subsampled rows [valid][D] of a mel spectrogram. Sortformer keeps these in its speaker cache and FIFO.
     */
    std::vector<float> pre_encode(const MelSpectrogram & mel, int & valid, const std::atomic<bool> * abort, EncoderProfile * profile = nullptr);
    /** The conformer layers over rows made by pre_encode (NeMo's bypass_pre_encode=True): `encoded` [n_rows][D]. */
    EncoderOutput encode_pre_encoded(const std::vector<float> & rows, int n_rows, const std::atomic<bool> * abort,
                                     EncoderProfile * profile = nullptr);

private:
    /** Step 1 of run(): the subsampling of `mel_frames` mel frames (zero past the clip), [frames][D]. */
    std::vector<float> subsample_padded(const MelSpectrogram & mel, int mel_frames, int & frames, int & valid, std::vector<std::string> & devices,
                                        const std::atomic<bool> * abort, EncoderProfile * profile);
    /** Step 2 of run(): the conformer layers and the head over `frames` subsampled rows, `valid` of them real. */
    EncoderOutput run_layers(const std::vector<float> & subsampled, int frames, int valid, int out_frames, EncoderHead head, bool keep_encoded,
                             const std::atomic<bool> * abort, EncoderProfile * profile, int prompt_index);
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
