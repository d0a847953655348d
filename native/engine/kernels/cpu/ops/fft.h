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
    /** Whether power8 can run: a power-of-two size on a CPU with AVX-512. */
    bool has_power8() const;
    /**
     * |X[k]|² of eight real signals at once, lane l of each: `input` [n][8] (sample i of signal l
     * at input[8i + l]), `power` [n/2 + 1][8]. The same transform as forward(), with the eight
     * signals in the lanes of one vector: each lane's numbers do not depend on the other lanes.
     */
    void power8(const double * input, double * power);

private:
    /** In place on split real/imaginary arrays (the butterflies vectorize over k). */
    void complex_fft(double * re, double * im, int n) const;

    int n_;
    bool pow2_;
    // For the n/2-point complex FFT, stage by stage: the twiddles of the stage with half-length m
    // start at index m − 1 (m = 1, 2, 4, …), exp(−2πik/(2m)) for k < m, contiguous per stage.
    std::vector<double> stage_re_, stage_im_;
    std::vector<std::complex<double>> split_twiddles_;  // exp(-2πik/n), k < n/2
    std::vector<int> bitrev_;
    std::vector<double> scratch_re_, scratch_im_;
    std::vector<double> scratch8_re_, scratch8_im_;  // power8: [n/2][8] each
    std::vector<std::complex<double>> dft_table_;    // non-power-of-two sizes: direct DFT
};

}  // namespace parakeet
