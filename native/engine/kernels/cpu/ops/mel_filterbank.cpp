#include "mel_filterbank.h"

#include <cmath>

namespace parakeet {
namespace {

// librosa's Slaney mel scale (htk=False): linear below 1 kHz (200/3 Hz per mel), logarithmic above
// with 27 mels per factor 6.4.
constexpr double kHzPerMel = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kHzPerMel;
const double kLogStep = std::log(6.4) / 27.0;

double hz_to_mel(double hz) { return hz >= kLogStartHz ? kLogStartMel + std::log(hz / kLogStartHz) / kLogStep : hz / kHzPerMel; }

double mel_to_hz(double mel) { return mel >= kLogStartMel ? kLogStartHz * std::exp(kLogStep * (mel - kLogStartMel)) : kHzPerMel * mel; }

}  // namespace

std::vector<float> slaney_mel_filterbank(int sample_rate, int n_fft, int n_mels) {
    const int bins = n_fft / 2 + 1;
    const double bin_hz = 1.0 / (double(n_fft) * (1.0 / double(sample_rate)));  // np.fft.rfftfreq's rounding
    const double min_mel = hz_to_mel(0.0);
    const double max_mel = hz_to_mel(double(sample_rate) / 2.0);
    const int points = n_mels + 2;
    std::vector<double> edges(size_t(points), 0.0);
    for (int i = 0; i < points; ++i) {
        // np.linspace: the last point exactly max_mel.
        edges[size_t(i)] = mel_to_hz(i == points - 1 ? max_mel : min_mel + i * ((max_mel - min_mel) / (points - 1)));
    }
    std::vector<float> out(size_t(n_mels) * size_t(bins), 0.0f);
    for (int m = 0; m < n_mels; ++m) {
        const double rise = edges[size_t(m) + 1] - edges[size_t(m)];
        const double fall = edges[size_t(m) + 2] - edges[size_t(m) + 1];
        const double area_norm = 2.0 / (edges[size_t(m) + 2] - edges[size_t(m)]);  // norm="slaney"
        for (int b = 0; b < bins; ++b) {
            const double hz = b * bin_hz;
            const double lower = (hz - edges[size_t(m)]) / rise;
            const double upper = (edges[size_t(m) + 2] - hz) / fall;
            // librosa keeps the triangle in float32, then scales it in double and stores float32 again.
            const float triangle = float(std::fmax(0.0, std::fmin(lower, upper)));
            out[size_t(m) * size_t(bins) + size_t(b)] = float(double(triangle) * area_norm);
        }
    }
    return out;
}

}  // namespace parakeet
