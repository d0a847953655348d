// Audio input: validation, downmix, and band-limited resampling to the
// model's rate (NeMo expects mono float PCM at 16 kHz).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Kaiser design (Oppenheim & Schafer): 90 dB stop band, β = 0.1102·(A − 8.7).
constexpr double kStopbandDb = 90.0;
constexpr double kKaiserBeta = 0.1102 * (kStopbandDb - 8.7);
// Transition band as fractions of the lower Nyquist frequency: flat to 86 %,
// fully attenuated from 98 % on, so nothing near Nyquist folds back.
constexpr double kPassEdge = 0.86;
constexpr double kStopEdge = 0.98;
constexpr int kMaxCachedPhases = 4096;

double bessel_i0(double x) {
    double sum = 1.0, term = 1.0;
    const double q = x * x / 4.0;
    for (int k = 1; k < 64; ++k) {
        term *= q / (double(k) * k);
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

/** Windowed-sinc interpolation filter evaluated at offset `x` input samples from the output instant. */
class SincKernel {
public:
    SincKernel(double cutoff, int half_width) : cutoff_(cutoff), half_width_(half_width), i0_beta_(bessel_i0(kKaiserBeta)) {}
    double operator()(double x) const {
        const double r = x / half_width_;
        if (r <= -1.0 || r >= 1.0) return 0.0;
        const double window = bessel_i0(kKaiserBeta * std::sqrt(1.0 - r * r)) / i0_beta_;
        const double arg = kPi * cutoff_ * x;
        const double sinc = x == 0.0 ? 1.0 : std::sin(arg) / arg;
        return cutoff_ * sinc * window;
    }
    int half_width() const { return half_width_; }

private:
    double cutoff_;
    int half_width_;
    double i0_beta_;
};

void check_abort(const std::atomic<bool> * abort) {
    if (abort != nullptr && abort->load(std::memory_order_relaxed)) throw Error(ErrorCode::Aborted, "cancelled");
}

std::vector<float> resample_mono(const std::vector<float> & in, int in_rate, int out_rate, const std::atomic<bool> * abort) {
    if (in_rate == out_rate) return in;
    const long long g = std::gcd(in_rate, out_rate);
    const long long up = out_rate / g;    // L
    const long long down = in_rate / g;   // M
    // Low-pass centred in the transition band below the lower Nyquist, in units of
    // the input's Nyquist frequency; the length follows from the band's width.
    const double ratio = std::min(1.0, double(out_rate) / in_rate);
    const double cutoff = ratio * (kPassEdge + kStopEdge) / 2.0;
    const double transition = ratio * (kStopEdge - kPassEdge) * kPi;  // radians per input sample
    const int taps_needed = int(std::ceil((kStopbandDb - 7.95) / (2.285 * transition)));
    const int half_width = std::max(4, (taps_needed + 1) / 2);
    const SincKernel kernel(cutoff, half_width);

    const size_t n_out = size_t((static_cast<long double>(in.size()) * up) / down);
    std::vector<float> out(n_out);
    const int taps = 2 * half_width;

    // Output n sits at input position n·M/L = base + phase/L. The filter is
    // tabulated per phase; for ratios with more phases than the table holds
    // (odd rates such as 44 099 Hz), the nearest two tabulated phases are
    // interpolated linearly (error far below the 90 dB stop band).
    const long long phases = std::min<long long>(up, kMaxCachedPhases);
    const bool exact = phases == up;
    std::vector<float> table(size_t(phases + 1) * taps);
    for (long long p = 0; p <= phases; ++p) {
        const double frac = double(p) / double(phases);
        for (int k = 0; k < taps; ++k) {
            // tap k reads input base − half_width + 1 + k
            table[size_t(p) * taps + k] = float(kernel(double(k - half_width + 1) - frac));
        }
    }
    std::vector<float> blended(exact ? 0 : taps);
    const long long n_in = (long long)in.size();
    for (size_t n = 0; n < n_out; ++n) {
        if ((n & 0xFFFF) == 0) check_abort(abort);
        const long long pos = (long long)n * down;
        const long long base = pos / up;
        const long long phase = pos % up;
        const float * coeffs;
        if (exact) {
            coeffs = &table[size_t(phase) * taps];
        } else {
            const double where = double(phase) * double(phases) / double(up);
            const long long p0 = (long long)where;
            const float w = float(where - double(p0));
            const float * a = &table[size_t(p0) * taps];
            const float * b = &table[size_t(p0 + 1) * taps];
            for (int k = 0; k < taps; ++k) blended[size_t(k)] = a[k] + w * (b[k] - a[k]);
            coeffs = blended.data();
        }
        double acc = 0.0;
        const long long first = base - half_width + 1;
        for (int k = 0; k < taps; ++k) {
            const long long i = first + k;
            if (i < 0 || i >= n_in) continue;  // zero outside the signal
            acc += double(coeffs[k]) * in[size_t(i)];
        }
        out[n] = float(acc);
    }
    return out;
}

}  // namespace

std::vector<float> to_mono_resampled(const float * interleaved, size_t n_frames, int channels, int in_rate, int out_rate,
                                     const std::atomic<bool> * abort) {
    if (n_frames == 0 || interleaved == nullptr) throw Error(ErrorCode::BadAudio, "the audio is empty (0 samples); record or choose audio with sound in it");
    if (channels < 1 || channels > 64) throw Error(ErrorCode::BadAudio, "unsupported channel count " + std::to_string(channels) + " (1..64)");
    if (in_rate < 1000 || in_rate > 768000) {
        throw Error(ErrorCode::BadAudio, "unsupported sample rate " + std::to_string(in_rate) + " Hz (expected 1000..768000 Hz)");
    }
    if (out_rate < 1000 || out_rate > 768000) {
        throw Error(ErrorCode::BadArgument, "unsupported output sample rate " + std::to_string(out_rate) + " Hz (expected 1000..768000 Hz)");
    }
    const double seconds = double(n_frames) / in_rate;
    if (seconds > kMaxAudioSeconds) {
        throw Error(ErrorCode::BadAudio, "the audio is " + std::to_string(int(seconds / 3600)) + " hours long; at most 24 hours can be transcribed in one call");
    }
    std::vector<float> mono(n_frames);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < n_frames; ++i) {
        double sum = 0.0;
        for (int c = 0; c < channels; ++c) {
            const float v = interleaved[i * size_t(channels) + size_t(c)];
            if (!std::isfinite(v)) {
                if (bad++ == 0) first_bad = i;
            }
            sum += v;
        }
        mono[i] = float(sum / channels);
    }
    if (bad > 0) {
        throw Error(ErrorCode::BadAudio, "the audio holds " + std::to_string(bad) + " non-finite samples (NaN or infinity), the first at " +
                                             std::to_string(double(first_bad) / in_rate) + " s; the recording or decoder is broken");
    }
    check_abort(abort);
    return resample_mono(mono, in_rate, out_rate, abort);
}

}  // namespace parakeet
