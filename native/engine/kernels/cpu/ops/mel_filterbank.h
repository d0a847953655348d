// NeMo's mel filterbank, for files that do not store it: librosa.filters.mel(sr, n_fft, n_mels,
// fmin=0, fmax=sr/2, htk=False, norm="slaney"), as NeMo's FilterbankFeatures builds it.
#pragma once

#include <vector>

namespace parakeet {

/** Row-major [n_mels][n_fft/2 + 1] (ggml ne [bins, n_mels]), each weight rounded to float as librosa stores it. */
std::vector<float> slaney_mel_filterbank(int sample_rate, int n_fft, int n_mels);

}  // namespace parakeet
