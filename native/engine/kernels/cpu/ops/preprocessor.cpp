#include "preprocessor.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "fft.h"
#include "parakeet/parakeet.h"
#include "simd_math.h"

namespace parakeet {
namespace {

void check_abort(const std::atomic<bool> * abort) {
    if (abort != nullptr && abort->load()) throw Error(ErrorCode::Aborted, "transcription cancelled");
}

#if defined(__x86_64__) || defined(_M_X64)
// ln x of 8 doubles (a mel filter's output plus the guard; 0 gives −inf, a negative NaN, as std::log): x = 2^e·m with m in
// [√½, √2), ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716, summed as 2·s·Σ s^2k/(2k+1) for
// k ≤ 10 (the first term left out is below 1e-17 of the sum), ln 2 in two parts: within a few
// ulp of std::log, far below the float the features are kept in (the features of the bench's 10 s
// clip came out bit for bit the same). One call per filter and eight frames instead of std::log
// per value: the log-mel of 10 s 1.5 → 1.2 ms (one thread, Zen 5).
PARAKEET_AVX512 __m512d log8(__m512d x) {
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_nan);  // [1, 2); NaN for x < 0, as std::log
    __m512d e = _mm512_getexp_pd(x);                                         // ⌊log2 x⌋
    const __mmask8 high = _mm512_cmp_pd_mask(m, _mm512_set1_pd(1.4142135623730951), _CMP_GT_OQ);
    m = _mm512_mask_mul_pd(m, high, m, _mm512_set1_pd(0.5));
    e = _mm512_mask_add_pd(e, high, e, one);
    const __m512d s = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one));
    const __m512d s2 = _mm512_mul_pd(s, s);
    __m512d series = _mm512_set1_pd(1.0 / 21.0);
    for (int k = 9; k >= 0; --k) series = _mm512_fmadd_pd(series, s2, _mm512_set1_pd(1.0 / double(2 * k + 1)));
    const __m512d ln_m = _mm512_mul_pd(_mm512_add_pd(s, s), series);
    // ln 2 = 0.693147180369123816490 (hi, 32 bits) + 1.90821492927058770002e-10 (lo)
    return _mm512_fmadd_pd(e, _mm512_set1_pd(6.93147180369123816490e-01), _mm512_fmadd_pd(e, _mm512_set1_pd(1.90821492927058770002e-10), ln_m));
}
#endif

}  // namespace

/**
 * Un-normalized log-mel of single frames of a clip: pre-emphasis, the centred
 * zero-padded STFT frame times the file's window, power, the file's mel
 * filterbank (sparse), ln(x + guard). Pre-emphasis is applied on the fly, so a
 * clip of any length needs no copy.
 */
class LogMelFrames {
public:
    LogMelFrames(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w)
            : pcm_(pcm),
              S_((long long)n_samples),
              hp_(hp),
              w_(w),
              n_fft_(hp.n_fft),
              bins_(hp.n_fft / 2 + 1),
              fft_(hp.n_fft) {
        // The window (win_length) zero-padded to n_fft, centred as torch.stft does.
        window_.assign(size_t(n_fft_), 0.0);
        const int left = (n_fft_ - hp.win_length) / 2;
        for (int i = 0; i < hp.win_length; ++i) window_[size_t(left + i)] = w.window[size_t(i)];
        // The mel filterbank is ~98% zeros: keep each filter's nonzero bin range.
        first_.assign(size_t(hp.n_mels), 0);
        last_.assign(size_t(hp.n_mels), -1);
        for (int m = 0; m < hp.n_mels; ++m) {
            for (int b = 0; b < bins_; ++b) {
                if (w.filterbank[size_t(m) * bins_ + b] != 0.0) {
                    if (last_[size_t(m)] < 0) first_[size_t(m)] = b;
                    last_[size_t(m)] = b;
                }
            }
        }
        frame_.resize(size_t(n_fft_));
        spectrum_.resize(size_t(bins_));
        power_.resize(size_t(bins_));
        if (batched()) {
            frame8_.resize(size_t(n_fft_) * 8);
            power8_.resize(size_t(bins_) * 8);
        }
    }

    /**
     * Reads the clip from `pcm`, which holds its samples from `base` on (a stream's window of it), with
     * `n_samples` the clip's length so far: frames are then asked only where every sample they read,
     * and the one before it (pre-emphasis), lies in [base, n_samples) or outside the clip.
     */
    void rebind(const float * pcm, long long base, long long n_samples) {
        pcm_ = pcm;
        base_ = base;
        S_ = n_samples;
    }

    /** Frames of the centred STFT (torch.stft center=True): 1 + floor(S / hop). */
    int frames() const { return int(1 + (S_ + 2 * (n_fft_ / 2) - n_fft_) / hp_.hop_length); }
    /** NeMo 2.x FilterbankFeatures.get_seq_len: floor((S + 2·pad − n_fft) / hop), no +1. */
    int valid_frames() const { return int((S_ + 2 * (n_fft_ / 2) - n_fft_) / hp_.hop_length); }

    /**
     * ln(mel + guard) of frames t, t + 1, … (not past `limit`) into out[m · stride + j] for the
     * j-th of them; returns how many: eight at once where the FFT can take them in the lanes of one
     * vector (RealFft::power8), else one. Every frame of a clip takes the same path, so a frame's
     * numbers do not depend on how frames are grouped or split over threads.
     */
    int frames_at(int t, int limit, double * out, size_t stride) {
        if (!batched()) {
            frame(t, out, stride);
            return 1;
        }
        const int count = std::min(8, limit - t);
        gather_frames8(t, count);
        fft_.power8(frame8_.data(), power8_.data());
        log_mel8(count, out, stride);
        return count;
    }

private:
    /** The eight-frame path (log_mel_batched). */
    bool batched() const { return fft_.has_power8() && hp_.mag_power == 2.0f; }
    long long frame_start(int t) const { return (long long)t * hp_.hop_length - n_fft_ / 2; }  // zero padding outside the clip
    /** Clip sample s after NeMo pre-emphasis (x[s] − preemph·x[s−1], the first sample kept), 0 outside the clip. */
    double emphasized(long long s) const {
        return (s >= 0 && s < S_) ? double(pcm_[s - base_]) - (s > 0 ? double(hp_.preemph) * pcm_[s - 1 - base_] : 0.0) : 0.0;
    }
    /** Sample i of the frame from `start`, pre-emphasized and windowed. */
    double windowed_sample(long long start, int i) const { return emphasized(start + i) * window_[size_t(i)]; }
    /** ln(filter m · power + guard), with power bin b at power[b · step]. */
    double log_mel(int m, const double * power, size_t step) const {
        double acc = 0.0;
        const double * f = &w_.filterbank[size_t(m) * bins_];
        for (int b = first_[size_t(m)]; b <= last_[size_t(m)]; ++b) acc += f[b] * power[size_t(b) * step];
        return std::log(acc + double(hp_.log_zero_guard));
    }
#if defined(__x86_64__) || defined(_M_X64)
    /**
     * frame8_[i · 8 + l] = windowed_sample(frame_start(t + l), i), lanes past `count` repeating its
     * last frame: the samples frames t … t + 7 span pre-emphasized once into span_ (each sample of
     * the span feeds up to four frames), then each of the n_fft rows of frame8_ one gather of its 8
     * lanes (hop apart) times the window. Sample by sample per lane, with the emphasis and bounds
     * checked for each: 1.2 → 1.0 ms for 10 s (one thread, Zen 5).
     */
    PARAKEET_AVX512 void gather_frames8(int t, int count) {
        const int hop = hp_.hop_length;
        const long long first = frame_start(t);
        const int span = (count - 1) * hop + n_fft_;
        span_.resize(size_t(span));
        // Inside the clip past its first sample, eight at a time with emphasized()'s two double
        // operations; the zero padding and the clip's first sample one by one.
        const __m512d pre = _mm512_set1_pd(double(hp_.preemph));
        int j = 0;
        for (; j < span && first + j < 1; ++j) span_[size_t(j)] = emphasized(first + j);
        for (; j + 8 <= span && first + j + 8 <= S_; j += 8) {
            const float * x = pcm_ + (first + j - base_);
            _mm512_storeu_pd(span_.data() + j,
                             _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x)), _mm512_mul_pd(pre, _mm512_cvtps_pd(_mm256_loadu_ps(x - 1)))));
        }
        for (; j < span; ++j) span_[size_t(j)] = emphasized(first + j);
        alignas(32) int32_t offsets[8];
        for (int l = 0; l < 8; ++l) offsets[l] = std::min(l, count - 1) * hop;
        const __m256i base = _mm256_load_si256(reinterpret_cast<const __m256i *>(offsets));
        for (int i = 0; i < n_fft_; ++i) {
            const __m512d x = _mm512_i32gather_pd(_mm256_add_epi32(base, _mm256_set1_epi32(i)), span_.data(), 8);
            _mm512_storeu_pd(frame8_.data() + size_t(i) * 8, _mm512_mul_pd(x, _mm512_set1_pd(window_[size_t(i)])));
        }
    }
    /**
     * ln(filter m · power + guard) of power8_'s first `count` lanes into out[m · stride + lane]: the
     * filter sums as log_mel adds them (one product, then one addition, bin by bin), eight lanes at
     * a time, then log8.
     */
    PARAKEET_AVX512 void log_mel8(int count, double * out, size_t stride) const {
        const __mmask8 lanes = __mmask8((1u << count) - 1u);
        const __m512d guard = _mm512_set1_pd(double(hp_.log_zero_guard));
        for (int m = 0; m < hp_.n_mels; ++m) {
            const double * f = &w_.filterbank[size_t(m) * bins_];
            __m512d acc = _mm512_setzero_pd();
            for (int b = first_[size_t(m)]; b <= last_[size_t(m)]; ++b) {
                acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_set1_pd(f[b]), _mm512_loadu_pd(power8_.data() + size_t(b) * 8)));
            }
            _mm512_mask_storeu_pd(out + size_t(m) * stride, lanes, log8(_mm512_add_pd(acc, guard)));
        }
    }
#else
    void gather_frames8(int, int) {}  // batched() is false without AVX-512
    void log_mel8(int, double *, size_t) const {}
#endif
    /** ln(mel + guard) of frame t into out[m * stride]. */
    void frame(int t, double * out, size_t stride) {
        const long long start = frame_start(t);
        for (int i = 0; i < n_fft_; ++i) frame_[size_t(i)] = windowed_sample(start, i);
        fft_.forward(frame_.data(), spectrum_.data());
        const bool square = hp_.mag_power == 2.0f;
        for (int b = 0; b < bins_; ++b) {
            const double p = std::norm(spectrum_[size_t(b)]);  // re² + im²
            power_[size_t(b)] = square ? p : std::pow(std::sqrt(p), double(hp_.mag_power));
        }
        for (int m = 0; m < hp_.n_mels; ++m) out[size_t(m) * stride] = log_mel(m, power_.data(), 1);
    }

    const float * pcm_;
    long long S_;
    long long base_ = 0;  // the clip sample pcm_[0] holds
    const Hparams & hp_;
    const PreprocessorWeights & w_;
    int n_fft_, bins_;
    RealFft fft_;
    std::vector<double> window_, frame_, power_, frame8_, power8_, span_;
    std::vector<std::complex<double>> spectrum_;
    std::vector<int> first_, last_;
};

bool log_mel_batched(const Hparams & hp) { return RealFft(hp.n_fft).has_power8() && hp.mag_power == 2.0f; }

MelStats clip_mel_stats(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w, const std::atomic<bool> * abort) {
    LogMelFrames frames(pcm, n_samples, hp, w);
    const int M = hp.n_mels, n = frames.valid_frames();
    std::vector<double> sum(static_cast<size_t>(M), 0.0), sum_sq(static_cast<size_t>(M), 0.0);
    std::vector<double> block(static_cast<size_t>(M) * 8);
    for (int t = 0; t < n;) {
        if ((t & 63) == 0) check_abort(abort);
        const int count = frames.frames_at(t, n, block.data(), 8);
        for (int l = 0; l < count; ++l) {
            for (int m = 0; m < M; ++m) {
                const double v = block[size_t(m) * 8 + size_t(l)];
                sum[size_t(m)] += v;
                sum_sq[size_t(m)] += v * v;
            }
        }
        t += count;
    }
    MelStats stats;
    stats.frames = n;
    stats.mean.assign(size_t(M), 0.0);
    stats.stddev.assign(size_t(M), 0.0);
    for (int m = 0; m < M && n > 0; ++m) {
        const double mean = sum[size_t(m)] / n;
        const double var = n > 1 ? std::max(0.0, (sum_sq[size_t(m)] - n * mean * mean) / (n - 1)) : 0.0;
        stats.mean[size_t(m)] = mean;
        stats.stddev[size_t(m)] = std::sqrt(var);
    }
    return stats;
}

// Below this many frames per thread, starting a thread costs more than it saves.
constexpr int kFramesPerWorker = 128;

MelSpectrogram compute_log_mel(const float * pcm, size_t n_samples, const Hparams & hp, const PreprocessorWeights & w,
                               const std::atomic<bool> * abort, const MelStats * clip_stats, int threads) {
    LogMelFrames frames(pcm, n_samples, hp, w);
    const int M = hp.n_mels;
    MelSpectrogram mel;
    mel.n_mels = M;
    mel.n_frames = frames.frames();
    mel.valid_frames = frames.valid_frames();
    const int T = mel.n_frames;

    std::vector<double> logmel(size_t(M) * T);
    // Frames are independent: with several threads each takes a contiguous share on its own
    // scratch (the numbers do not depend on the split). The work is small, so short clips stay on
    // the calling thread.
    const int workers = std::max(1, std::min(threads, T / kFramesPerWorker));
    auto run = [&](LogMelFrames & f, int t0, int t1, std::atomic<bool> & cancelled) {
        for (int t = t0; t < t1;) {
            if (((t - t0) & 63) == 0 && ((abort != nullptr && abort->load(std::memory_order_relaxed)) || cancelled.load())) {
                cancelled = true;
                return;
            }
            t += f.frames_at(t, t1, &logmel[size_t(t)], size_t(T));
        }
    };
    std::atomic<bool> cancelled{false};
    if (workers == 1) {
        run(frames, 0, T, cancelled);
    } else {
        // Each helper's scratch is made here, so an allocation failure throws on this thread; a
        // thread that cannot start, or a helper that throws, stops the others, and the error is
        // rethrown once every started thread is joined (an exception leaving a std::thread, or a
        // joinable one destroyed, would end the process).
        std::vector<LogMelFrames> scratch;
        scratch.reserve(size_t(workers - 1));
        for (int i = 1; i < workers; ++i) scratch.emplace_back(pcm, n_samples, hp, w);
        std::vector<std::exception_ptr> failures(static_cast<size_t>(workers));
        std::vector<std::thread> pool;
        const int per = (T + workers - 1) / workers;
        auto share = [&](LogMelFrames & f, int i) {
            try {
                run(f, std::min(T, i * per), std::min(T, (i + 1) * per), cancelled);
            } catch (...) {
                failures[size_t(i)] = std::current_exception();
                cancelled = true;
            }
        };
        try {
            for (int i = 1; i < workers; ++i) pool.emplace_back(share, std::ref(scratch[size_t(i - 1)]), i);
        } catch (...) {
            failures[0] = std::current_exception();
            cancelled = true;
        }
        if (!cancelled) share(frames, 0);
        for (std::thread & t : pool) t.join();
        for (const std::exception_ptr & e : failures) {
            if (e) std::rethrow_exception(e);
        }
    }
    if (cancelled) check_abort(abort);

    // Per-feature normalization (NeMo normalize_batch "per_feature"): over this
    // clip's valid frames — or, for a window of a longer clip, with the whole
    // clip's statistics, as NeMo would normalize the whole file.
    // Unbiased std, NaN (one frame) -> 0, then +1e-5 on the std.
    const int n = mel.valid_frames;
    if (hp.normalize == "per_feature" && n > 0) {
        for (int m = 0; m < M; ++m) {
            double * row = &logmel[size_t(m) * T];
            double mean = 0.0, stddev = 0.0;
            if (clip_stats != nullptr) {
                mean = clip_stats->mean[size_t(m)];
                stddev = clip_stats->stddev[size_t(m)];
            } else {
                for (int t = 0; t < n; ++t) mean += row[t];
                mean /= n;
                double var = 0.0;
                for (int t = 0; t < n; ++t) var += (row[t] - mean) * (row[t] - mean);
                stddev = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
            }
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

struct StreamingLogMel::Impl {
    Impl(const Hparams & h, const PreprocessorWeights & w) : hp(h), frames(nullptr, 0, h, w), block(size_t(h.n_mels) * 8) {}
    const Hparams & hp;
    LogMelFrames frames;
    std::vector<float> samples;  // the clip from sample `base` on
    long long base = 0;          // clip sample of samples[0]
    long long total = 0;         // samples received
    int next = 0;                // next frame to emit
    bool ended = false;
    std::vector<double> block;  // [M][8] one frames_at call's output
};

StreamingLogMel::StreamingLogMel(const Hparams & hp, const PreprocessorWeights & w) : impl_(std::make_unique<Impl>(hp, w)) {}
StreamingLogMel::~StreamingLogMel() = default;

void StreamingLogMel::push(const float * pcm, size_t n) {
    Impl & s = *impl_;
    // Samples no later frame reads (its window and the pre-emphasis sample before it) are dropped
    // once they are most of the buffer: the memmove keeps the capacity, so memory stays flat.
    const long long keep_from = std::max(0LL, (long long)s.next * s.hp.hop_length - s.hp.n_fft / 2 - 1);
    const size_t drop = size_t(std::max(0LL, keep_from - s.base));
    if (drop > 0 && drop >= s.samples.size() / 2) {
        s.samples.erase(s.samples.begin(), s.samples.begin() + ptrdiff_t(drop));
        s.base += (long long)drop;
    }
    s.samples.insert(s.samples.end(), pcm, pcm + n);
    s.total += (long long)n;
}

int StreamingLogMel::take(bool end_of_clip, std::vector<float> & rows) {
    Impl & s = *impl_;
    const int M = s.hp.n_mels;
    const long long hop = s.hp.hop_length, half = s.hp.n_fft / 2;
    // Before the end, frame t is final once its window [t·hop − n_fft/2, t·hop + n_fft/2) is received.
    // At the end the clip's length is known: frames up to NeMo's valid length read zero past it, and
    // the last centred frame (which NeMo's feature mask zeroes) follows as zeros.
    int limit = 0;
    if (end_of_clip) {
        limit = int(s.total / hop);  // get_seq_len: floor(S / hop)
    } else {
        limit = s.total >= half ? int((s.total - half) / hop) + 1 : 0;
        limit = std::min(limit, int(s.total / hop));
    }
    s.frames.rebind(s.samples.data(), s.base, s.total);
    const size_t before = rows.size();
    while (s.next < limit) {
        const int count = s.frames.frames_at(s.next, limit, s.block.data(), 8);
        for (int l = 0; l < count; ++l) {
            for (int m = 0; m < M; ++m) rows.push_back(float(s.block[size_t(m) * 8 + size_t(l)]));
        }
        s.next += count;
    }
    if (end_of_clip && !s.ended && s.total > 0) {
        rows.insert(rows.end(), size_t(M), 0.0f);  // frame floor(S / hop): past NeMo's valid length, zero
        s.next += 1;
        s.ended = true;
    }
    return int((rows.size() - before) / size_t(M));
}

}  // namespace parakeet
