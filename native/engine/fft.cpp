#include "fft.h"

#include <cmath>

namespace parakeet {
namespace {
constexpr double kPi = 3.14159265358979323846;

// std::complex's operator* must handle infinities and NaNs by Annex G, which compilers implement as a
// call (__muldc3) per product unless -ffast-math; the transform's values are finite, so the plain
// formula gives the same result without the call.
inline std::complex<double> mul(const std::complex<double> & a, const std::complex<double> & b) {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
}

RealFft::RealFft(int n) : n_(n), pow2_(n >= 4 && (n & (n - 1)) == 0) {
    if (pow2_) {
        // A real FFT of size n as one complex FFT of size n/2 plus a split step.
        const int h = n / 2;
        half_twiddles_.resize(size_t(h / 2 > 0 ? h / 2 : 1));
        for (int k = 0; k < h / 2; ++k) half_twiddles_[size_t(k)] = std::polar(1.0, -2.0 * kPi * k / h);
        split_twiddles_.resize(size_t(h));
        for (int k = 0; k < h; ++k) split_twiddles_[size_t(k)] = std::polar(1.0, -2.0 * kPi * k / n);
        bitrev_.resize(size_t(h));
        int bits = 0;
        while ((1 << bits) < h) ++bits;
        for (int i = 0; i < h; ++i) {
            int r = 0;
            for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
            bitrev_[size_t(i)] = r;
        }
        scratch_.resize(size_t(h));
    } else {
        dft_table_.resize(size_t(n));
        for (int k = 0; k < n; ++k) dft_table_[size_t(k)] = std::polar(1.0, -2.0 * kPi * k / n);
    }
}

void RealFft::complex_fft(std::complex<double> * data, int n, const std::vector<std::complex<double>> & tw) const {
    for (int i = 0; i < n; ++i) {
        const int j = bitrev_[size_t(i)];
        if (j > i) std::swap(data[i], data[j]);
    }
    for (int len = 2; len <= n; len <<= 1) {
        const int step = n / len;
        for (int start = 0; start < n; start += len) {
            for (int k = 0; k < len / 2; ++k) {
                const std::complex<double> w = tw[size_t(k * step)];
                const std::complex<double> a = data[start + k];
                const std::complex<double> b = mul(data[start + k + len / 2], w);
                data[start + k] = a + b;
                data[start + k + len / 2] = a - b;
            }
        }
    }
}

void RealFft::forward(const double * x, std::complex<double> * bins) {
    if (!pow2_) {
        for (int k = 0; k <= n_ / 2; ++k) {
            std::complex<double> acc(0.0, 0.0);
            for (int t = 0; t < n_; ++t) acc += x[t] * dft_table_[size_t((long long)k * t % n_)];  // real × complex: no call
            bins[k] = acc;
        }
        return;
    }
    const int h = n_ / 2;
    for (int i = 0; i < h; ++i) scratch_[size_t(i)] = std::complex<double>(x[2 * i], x[2 * i + 1]);
    complex_fft(scratch_.data(), h, half_twiddles_);
    // Split: X[k] = E[k] + W^k O[k], with E/O the spectra of even/odd samples.
    for (int k = 0; k <= h; ++k) {
        const std::complex<double> zk = scratch_[size_t(k % h)];
        const std::complex<double> zn = std::conj(scratch_[size_t((h - k) % h)]);
        const std::complex<double> even = 0.5 * (zk + zn);
        const std::complex<double> odd = mul(std::complex<double>(0.0, -0.5), zk - zn);
        const std::complex<double> w = k < h ? split_twiddles_[size_t(k)] : std::complex<double>(-1.0, 0.0);
        bins[k] = even + mul(w, odd);
    }
}

}  // namespace parakeet
