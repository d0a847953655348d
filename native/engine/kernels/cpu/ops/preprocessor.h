// Log-mel front end, exactly NeMo's FilterbankFeatures at inference (spec §2).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "hparams.h"
#include "model_weights.h"

namespace parakeet {

struct MelSpectrogram {
    std::vector<float> data;  // [M][T], time fastest
    int n_mels = 0;
    int n_frames = 0;      // T = 1 + floor(S / hop) for centred frames
    int valid_frames = 0;  // NeMo get_seq_len: floor(S / hop)
};

/** The eight-frame log-mel path runs for this model on this CPU (a power-of-two FFT on AVX-512, power spectrum). */
bool log_mel_batched(const Hparams & hp);

/** Per-feature mean and unbiased std of the log-mel over a clip's valid frames. */
struct MelStats {
    std::vector<double> mean, stddev;  // [M]
    int frames = 0;
};

/** The statistics of a whole clip, frame by frame (memory does not grow with its length). */
MelStats clip_mel_stats(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w, const std::atomic<bool> * abort);

/**
 * The normalized log-mel of mono PCM at the model's rate, in double precision.
 * `clip_stats`: normalize with these (a window of a longer clip) instead of
 * this audio's own statistics. `threads` > 1 splits the frames over that many
 * threads (clips of at least 128 frames per thread); the result is the same.
 */
MelSpectrogram compute_log_mel(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w,
                               const std::atomic<bool> * abort, const MelStats * clip_stats = nullptr, int threads = 1);

/**
 * The un-normalized log-mel of a clip that arrives block by block (cache-aware streaming; only exact for
 * normalize NA, where features are frame-local): each frame once every sample it reads has arrived, and
 * at the end the frames NeMo computes from the whole clip, its final zeroed frame included.
 */
class StreamingLogMel {
public:
    StreamingLogMel(const Hparams & hp, const PreprocessorWeights & w);
    ~StreamingLogMel();
    void push(const float * pcm, size_t n);
    /** Appends the frames now final to `rows` ([t][M], frequency fastest); returns how many. */
    int take(bool end_of_clip, std::vector<float> & rows);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace parakeet
