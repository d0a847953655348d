#include "fft.h"

#include <cmath>

#include "cpu_ops.h"
#include "simd_math.h"

namespace parakeet {
namespace {
constexpr double kPi = 3.14159265358979323846;

// std::complex's operator* must handle infinities and NaNs by Annex G, which compilers implement as a
// call (__muldc3) per product unless -ffast-math; the transform's values are finite, so the plain
// formula gives the same result without the call.
inline std::complex<double> mul(const std::complex<double> & a, const std::complex<double> & b) {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
}  // namespace

RealFft::RealFft(int n) : n_(n), pow2_(n >= 4 && (n & (n - 1)) == 0) {
    if (pow2_) {
        // A real FFT of size n as one complex FFT of size n/2 plus a split step.
        const int h = n / 2;
        for (int m = 1; m < h; m <<= 1) {
            for (int k = 0; k < m; ++k) {
                stage_re_.push_back(std::cos(-kPi * k / m));
                stage_im_.push_back(std::sin(-kPi * k / m));
            }
        }
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
        scratch_re_.resize(size_t(h));
        scratch_im_.resize(size_t(h));
        scratch8_re_.resize(size_t(h) * 8);
        scratch8_im_.resize(size_t(h) * 8);
    } else {
        dft_table_.resize(size_t(n));
        for (int k = 0; k < n; ++k) dft_table_[size_t(k)] = std::polar(1.0, -2.0 * kPi * k / n);
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PARAKEET_FFT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PARAKEET_FFT_CLONES
#endif

// Iterative radix-2 decimation in time. Per stage, the butterflies of one twiddle index k run over
// all groups, and within a group over k with contiguous twiddles, so the compiler vectorizes the
// inner loop (plain double arithmetic: the same values as the complex formula).
PARAKEET_FFT_CLONES void RealFft::complex_fft(double * re, double * im, int n) const {
    for (int i = 0; i < n; ++i) {
        const int j = bitrev_[size_t(i)];
        if (j > i) {
            std::swap(re[i], re[j]);
            std::swap(im[i], im[j]);
        }
    }
    for (int m = 1; m < n; m <<= 1) {
        const double * wr = stage_re_.data() + (m - 1);
        const double * wi = stage_im_.data() + (m - 1);
        for (int start = 0; start < n; start += 2 * m) {
            double *ar = re + start, *ai = im + start, *br = re + start + m, *bi = im + start + m;
            for (int k = 0; k < m; ++k) {
                const double tr = br[k] * wr[k] - bi[k] * wi[k];
                const double ti = br[k] * wi[k] + bi[k] * wr[k];
                br[k] = ar[k] - tr;
                bi[k] = ai[k] - ti;
                ar[k] = ar[k] + tr;
                ai[k] = ai[k] + ti;
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
    for (int i = 0; i < h; ++i) {
        scratch_re_[size_t(i)] = x[2 * i];
        scratch_im_[size_t(i)] = x[2 * i + 1];
    }
    complex_fft(scratch_re_.data(), scratch_im_.data(), h);
    // Split: X[k] = E[k] + W^k O[k], with E/O the spectra of even/odd samples.
    for (int k = 0; k <= h; ++k) {
        const std::complex<double> zk(scratch_re_[size_t(k % h)], scratch_im_[size_t(k % h)]);
        const std::complex<double> zn(scratch_re_[size_t((h - k) % h)], -scratch_im_[size_t((h - k) % h)]);
        const std::complex<double> even = 0.5 * (zk + zn);
        const std::complex<double> odd = mul(std::complex<double>(0.0, -0.5), zk - zn);
        const std::complex<double> w = k < h ? split_twiddles_[size_t(k)] : std::complex<double>(-1.0, 0.0);
        bins[k] = even + mul(w, odd);
    }
}

bool RealFft::has_power8() const { return pow2_ && cpu_has_avx512f(); }

#ifdef PARAKEET_X86
namespace {
// The complex FFT of forward()/complex_fft() on eight signals, one per lane: the inputs arrive in
// bit-reversed order, then the same radix-2 stages with the same twiddles.
PARAKEET_AVX512 void complex_fft8(double * re, double * im, int h, const double * stage_re, const double * stage_im) {
    for (int m = 1; m < h; m <<= 1) {
        const double * wr = stage_re + (m - 1);
        const double * wi = stage_im + (m - 1);
        for (int start = 0; start < h; start += 2 * m) {
            for (int k = 0; k < m; ++k) {
                double *ar = re + size_t(start + k) * 8, *ai = im + size_t(start + k) * 8;
                double *br = re + size_t(start + k + m) * 8, *bi = im + size_t(start + k + m) * 8;
                const __m512d w_re = _mm512_set1_pd(wr[k]), w_im = _mm512_set1_pd(wi[k]);
                const __m512d b_re = _mm512_loadu_pd(br), b_im = _mm512_loadu_pd(bi);
                const __m512d a_re = _mm512_loadu_pd(ar), a_im = _mm512_loadu_pd(ai);
                const __m512d t_re = _mm512_sub_pd(_mm512_mul_pd(b_re, w_re), _mm512_mul_pd(b_im, w_im));
                const __m512d t_im = _mm512_add_pd(_mm512_mul_pd(b_re, w_im), _mm512_mul_pd(b_im, w_re));
                _mm512_storeu_pd(br, _mm512_sub_pd(a_re, t_re));
                _mm512_storeu_pd(bi, _mm512_sub_pd(a_im, t_im));
                _mm512_storeu_pd(ar, _mm512_add_pd(a_re, t_re));
                _mm512_storeu_pd(ai, _mm512_add_pd(a_im, t_im));
            }
        }
    }
}

// forward()'s split step (X[k] = E[k] + W^k O[k]) and |X[k]|², eight lanes at a time.
PARAKEET_AVX512 void split_power8(const double * re, const double * im, int h, const std::complex<double> * twiddles, double * power) {
    const __m512d half = _mm512_set1_pd(0.5);
    for (int k = 0; k <= h; ++k) {
        const size_t a = size_t(k % h) * 8, b = size_t((h - k) % h) * 8;
        const __m512d zk_re = _mm512_loadu_pd(re + a), zk_im = _mm512_loadu_pd(im + a);
        const __m512d zn_re = _mm512_loadu_pd(re + b), zn_im = _mm512_sub_pd(_mm512_setzero_pd(), _mm512_loadu_pd(im + b));
        const __m512d even_re = _mm512_mul_pd(half, _mm512_add_pd(zk_re, zn_re));
        const __m512d even_im = _mm512_mul_pd(half, _mm512_add_pd(zk_im, zn_im));
        // odd = (−i/2)·(zk − zn)
        const __m512d odd_re = _mm512_mul_pd(half, _mm512_sub_pd(zk_im, zn_im));
        const __m512d odd_im = _mm512_mul_pd(_mm512_set1_pd(-0.5), _mm512_sub_pd(zk_re, zn_re));
        const std::complex<double> w = k < h ? twiddles[k] : std::complex<double>(-1.0, 0.0);
        const __m512d w_re = _mm512_set1_pd(w.real()), w_im = _mm512_set1_pd(w.imag());
        const __m512d x_re = _mm512_add_pd(even_re, _mm512_sub_pd(_mm512_mul_pd(w_re, odd_re), _mm512_mul_pd(w_im, odd_im)));
        const __m512d x_im = _mm512_add_pd(even_im, _mm512_add_pd(_mm512_mul_pd(w_re, odd_im), _mm512_mul_pd(w_im, odd_re)));
        _mm512_storeu_pd(power + size_t(k) * 8, _mm512_add_pd(_mm512_mul_pd(x_re, x_re), _mm512_mul_pd(x_im, x_im)));
    }
}
}  // namespace
#endif

void RealFft::power8(const double * x, double * power) {
#ifdef PARAKEET_X86
    const int h = n_ / 2;
    double *re = scratch8_re_.data(), *im = scratch8_im_.data();
    // Even samples are the real parts, odd ones the imaginary parts, stored bit-reversed.
    for (int i = 0; i < h; ++i) {
        const size_t dst = size_t(bitrev_[size_t(i)]) * 8;
        for (int l = 0; l < 8; ++l) {
            re[dst + size_t(l)] = x[size_t(2 * i) * 8 + size_t(l)];
            im[dst + size_t(l)] = x[size_t(2 * i + 1) * 8 + size_t(l)];
        }
    }
    complex_fft8(re, im, h, stage_re_.data(), stage_im_.data());
    split_power8(re, im, h, split_twiddles_.data(), power);
#else
    (void)x, (void)power;
#endif
}

}  // namespace parakeet
