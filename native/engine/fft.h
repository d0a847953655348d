// Real FFT in double precision for the STFT of the log-mel front end.
#pragma once

#include <complex>
#include <vector>

namespace parakeet {

class RealFft {
public:
    explicit RealFft(int n);
    /** Spectrum bins 0..n/2 of a real signal of length n. */
    void forward(const double * input, std::complex<double> * bins);
    int size() const { return n_; }

private:
    void complex_fft(std::complex<double> * data, int n, const std::vector<std::complex<double>> & twiddles) const;

    int n_;
    bool pow2_;
    std::vector<std::complex<double>> half_twiddles_;   // for the n/2-point complex FFT
    std::vector<std::complex<double>> split_twiddles_;  // exp(-2πik/n), k < n/2
    std::vector<int> bitrev_;
    std::vector<std::complex<double>> scratch_;
    std::vector<std::complex<double>> dft_table_;       // non-power-of-two sizes: direct DFT
};

}  // namespace parakeet
