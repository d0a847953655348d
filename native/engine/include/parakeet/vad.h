// Silero VAD (voice activity detection) on ggml: the GGUF of the model spec §8 (general.architecture =
// "silero_vad", 16 kHz and 8 kHz weight sets), one speech probability per 32 ms chunk.
//
//   std::shared_ptr<const parakeet::VadModel> vad = parakeet::VadModel::load("silero-vad.gguf");
//   parakeet::VadStream stream(vad, 16000);
//   std::vector<float> probs = stream.push(pcm.data(), pcm.size());   // one per completed 512-sample chunk
//   std::vector<float> last = stream.flush();                         // the zero-padded partial chunk, if any
//
// Threading and ownership:
//   VadModel::load     any thread; the weights are read-only afterwards and shared by every stream.
//   VadStream          one stream per audio source (its context samples and LSTM h/c); one call at a time per
//                      stream (a concurrent call throws Error(Busy)); different streams run at the same time.
//                      Each call computes on the calling thread only, in its own small ggml graph and memory:
//                      it shares no thread pool, buffer or lock with the ASR model's states, so it never waits
//                      for a transcription and a transcription never waits for it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parakeet/parakeet.h"

namespace parakeet {

struct VadModelInfo {
    std::string path;
    std::string name;               // general.name
    std::string source_version;     // silero_vad.source.version ("v6.2", "v5.1.2", …)
    std::string source_sha256;      // silero_vad.source.sha256 (the ONNX file converted)
    std::string weight_type;        // "f32" or "f16" (the conv and LSTM weights)
    std::vector<int> sample_rates;  // {8000, 16000}
    uint64_t file_size = 0;
    std::string bundle_component;  // the parakeet.cpp bundle component it was read from ("" for a Silero GGUF)
};

class SileroWeights;  // silero_vad.h

class VadModel {
public:
    /** Throws Error(ModelInvalid) naming what the file is when it is not a Silero VAD GGUF. */
    static std::shared_ptr<const VadModel> load(const std::string & path);
    ~VadModel();
    VadModel(const VadModel &) = delete;
    VadModel & operator=(const VadModel &) = delete;

    const VadModelInfo & info() const { return info_; }
    /** Samples per chunk at a rate (512 at 16 kHz, 256 at 8 kHz); throws BadArgument for other rates. */
    int chunk_samples(int sample_rate) const;
    const SileroWeights & weights(int sample_rate) const;

private:
    VadModel() = default;
    VadModelInfo info_;
    std::unique_ptr<SileroWeights> rate16k_;
    std::unique_ptr<SileroWeights> rate8k_;
};

class VadStream {
public:
    /** sample_rate 16000 or 8000 (other rates: resample to 16 kHz first); throws BadArgument otherwise. */
    VadStream(std::shared_ptr<const VadModel> model, int sample_rate);
    ~VadStream();
    VadStream(const VadStream &) = delete;
    VadStream & operator=(const VadStream &) = delete;

    int sample_rate() const { return sample_rate_; }
    int chunk_samples() const { return chunk_; }
    /**
     * Appends samples; returns one probability per chunk completed by them (the remainder waits). Throws
     * Error(BadAudio) for a NaN, an infinity or a sample beyond ±1e6 (not audio); a call that throws leaves the
     * stream as it was before it.
     */
    std::vector<float> push(const float * samples, size_t n);
    /** The remainder zero-padded to one chunk (none when nothing waits); the state is kept. */
    std::vector<float> flush();
    /** Forgets the context, the LSTM state and the waiting samples (a new recording). */
    void reset();

private:
    float run_chunk(const float * chunk);

    std::shared_ptr<const VadModel> model_;
    const SileroWeights * weights_;
    int sample_rate_;
    int chunk_;
    std::vector<float> window_;   // context | chunk, the model's input
    std::vector<float> pending_;  // samples of the next, incomplete chunk
    std::vector<float> h_, c_;    // LSTM state
    struct Compute;               // the stream's CPU backend, graph and its buffers (silero_vad.cpp)
    std::unique_ptr<Compute> compute_;
    std::atomic<bool> busy_{false};
};

}  // namespace parakeet
