#include "preprocessor.h"

#include <cmath>
#include <complex>

#include "fft.h"
#include "parakeet/parakeet.h"

namespace parakeet {

MelSpectrogram compute_log_mel(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w,
                               const std::atomic<bool> * abort) {
    const int n_fft = hp.n_fft, hop = hp.hop_length, M = hp.n_mels, bins = n_fft / 2 + 1;
    const long long S = (long long)n_samples;
    const long long pad = n_fft / 2;  // torch.stft(center=True), pad_mode "constant" (zeros)

    MelSpectrogram mel;
    mel.n_mels = M;
    mel.n_frames = int(1 + (S + 2 * pad - n_fft) / hop);
    // NeMo 2.x FilterbankFeatures.get_seq_len: floor((S + 2·pad − n_fft) / hop), no +1.
    mel.valid_frames = int((S + 2 * pad - n_fft) / hop);
    const int T = mel.n_frames;

    // Pre-emphasis (NeMo: x[t] − preemph·x[t−1], first sample kept).
    std::vector<double> x(static_cast<size_t>(S));
    for (long long t = 0; t < S; ++t) {
        x[size_t(t)] = double(pcm[t]) - (t > 0 ? double(hp.preemph) * pcm[t - 1] : 0.0);
    }

    // The window (win_length) zero-padded to n_fft, centred as torch.stft does.
    std::vector<double> window(size_t(n_fft), 0.0);
    const int left = (n_fft - hp.win_length) / 2;
    for (int i = 0; i < hp.win_length; ++i) window[size_t(left + i)] = w.window[size_t(i)];

    // The mel filterbank is ~98% zeros: keep each filter's nonzero bin range.
    std::vector<int> first(size_t(M), 0), last(size_t(M), -1);
    for (int m = 0; m < M; ++m) {
        for (int b = 0; b < bins; ++b) {
            if (w.filterbank[size_t(m) * bins + b] != 0.0) {
                if (last[size_t(m)] < 0) first[size_t(m)] = b;
                last[size_t(m)] = b;
            }
        }
    }

    RealFft fft(n_fft);
    std::vector<double> frame(static_cast<size_t>(n_fft));
    std::vector<std::complex<double>> spectrum(static_cast<size_t>(bins));
    std::vector<double> power(static_cast<size_t>(bins));
    std::vector<double> logmel(size_t(M) * T);
    const bool square = hp.mag_power == 2.0f;
    for (int t = 0; t < T; ++t) {
        if ((t & 63) == 0 && abort != nullptr && abort->load()) throw Error(ErrorCode::Aborted, "transcription cancelled");
        const long long start = (long long)t * hop - pad;
        for (int i = 0; i < n_fft; ++i) {
            const long long s = start + i;
            frame[size_t(i)] = (s >= 0 && s < S) ? x[size_t(s)] * window[size_t(i)] : 0.0;
        }
        fft.forward(frame.data(), spectrum.data());
        for (int b = 0; b < bins; ++b) {
            const double p = std::norm(spectrum[size_t(b)]);  // re² + im²
            power[size_t(b)] = square ? p : std::pow(std::sqrt(p), double(hp.mag_power));
        }
        for (int m = 0; m < M; ++m) {
            double acc = 0.0;
            const double * f = &w.filterbank[size_t(m) * bins];
            for (int b = first[size_t(m)]; b <= last[size_t(m)]; ++b) acc += f[b] * power[size_t(b)];
            logmel[size_t(m) * T + t] = std::log(acc + double(hp.log_zero_guard));
        }
    }

    // Per-feature normalization over the valid frames (NeMo normalize_batch "per_feature"):
    // unbiased std, NaN (one frame) -> 0, then +1e-5 on the std.
    const int n = mel.valid_frames;
    if (hp.normalize == "per_feature" && n > 0) {
        for (int m = 0; m < M; ++m) {
            double * row = &logmel[size_t(m) * T];
            double mean = 0.0;
            for (int t = 0; t < n; ++t) mean += row[t];
            mean /= n;
            double var = 0.0;
            for (int t = 0; t < n; ++t) var += (row[t] - mean) * (row[t] - mean);
            const double stddev = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
            const double denom = stddev + 1e-5;
            for (int t = 0; t < n; ++t) row[t] = (row[t] - mean) / denom;
        }
    }
    // Frames past the valid length are zero (NeMo masks with pad_value 0).
    mel.data.assign(size_t(M) * T, 0.0f);
    for (int m = 0; m < M; ++m) {
        for (int t = 0; t < n && t < T; ++t) mel.data[size_t(m) * T + t] = float(logmel[size_t(m) * T + t]);
    }
    return mel;
}

}  // namespace parakeet
