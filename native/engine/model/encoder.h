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
    int frames = 0;   // T' (spatial)
    int valid = 0;    // Tv (NeMo encoded_len)
    int dim = 0;
    std::vector<float> encoded;  // [T'][D] when requested
    int head_dim = 0;
    std::vector<float> head;     // [T'][V+1] CTC logits, or [T'][J] joint.enc projection
    std::vector<std::string> devices;
};

class Encoder {
public:
    Encoder(const Hparams & hp, const EncoderWeights & w, const PackedWeights & packed, ComputeBackend & backend);
    /** prompt_index: prompt models' one-hot position for the joint head (−1 = the dictionary's "auto"). */
    EncoderOutput run(const MelSpectrogram & mel, EncoderHead head, bool keep_encoded, const std::atomic<bool> * abort,
                      EncoderProfile * profile = nullptr, int prompt_index = -1);

private:
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
