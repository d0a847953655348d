// Speaker diarization with NVIDIA's Streaming Sortformer (diar_streaming_sortformer_4spk-v2) on the
// engine: a GGUF with parakeet.arch = diarization (FastConformer encoder, transformer encoder, one
// sigmoid per speaker and 80 ms frame).
//
//   std::shared_ptr<parakeet::DiarizerModel> d = parakeet::DiarizerModel::load("sortformer.gguf");
//   parakeet::SpeakerActivities all = d->diarize(pcm.data(), pcm.size(), /*streaming=*/true);
//   auto live = d->create_stream();
//   parakeet::SpeakerActivities fresh = live->push(block.data(), block.size());   // frames now final
//   parakeet::SpeakerActivities tail = live->finish();
//
// Offline (streaming = false) is NeMo's forward with streaming_mode off: the clip scaled to a peak of 1
// and one pass over all of it (memory and time grow with the square of its length: for clips of
// minutes). Streaming is NeMo's forward_streaming: chunks of chunk_len frames with left/right context,
// a speaker cache and a FIFO (bounded memory and work per chunk, any length); a stream fed block by
// block gives exactly the frames of diarize(…, true) on the whole clip.
//
// Threading: one computation at a time per model (calls wait for each other); streams of one model share it.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace parakeet {

struct DiarizerLoadParams {
    std::string device;  // "" = $PARAKEET_DEVICE or auto
    int n_threads = 0;   // 0 = all hardware threads
    std::string weight_type = "auto";
};

struct DiarizerInfo {
    std::string path;
    std::string name;  // general.name
    int n_speakers = 0;
    double frame_sec = 0.0;  // 0.08 for 10 ms hops and ×8 subsampling
    int sample_rate = 16000;
    bool streaming_mode = true;  // parakeet.diar.streaming_mode: the model was trained for streaming
    int chunk_len = 0, chunk_left_context = 0, chunk_right_context = 0;
    int spkcache_len = 0, fifo_len = 0, spkcache_update_period = 0;
    int encoder_layers = 0, transformer_layers = 0;
    // The file's segment thresholds (parakeet.diar.onset_threshold / offset_threshold; 0.5 where absent).
    double onset_threshold = 0.5, offset_threshold = 0.5;
    std::string device;
    int n_threads = 0;
};

/** Per-frame speaker activity probabilities, [frames][n_speakers]. */
struct SpeakerActivities {
    double frame_sec = 0.0;
    int n_speakers = 0;
    int frames = 0;
    std::vector<float> values;
};

class DiarizerStream;

class DiarizerModel : public std::enable_shared_from_this<DiarizerModel> {
public:
    /** Throws Error(ModelInvalid) naming what the file is when it is not a Sortformer diarizer (an ASR model, a VAD, …). */
    static std::shared_ptr<DiarizerModel> load(const std::string & path, const DiarizerLoadParams & params = {});
    ~DiarizerModel();
    DiarizerModel(const DiarizerModel &) = delete;
    DiarizerModel & operator=(const DiarizerModel &) = delete;

    const DiarizerInfo & info() const;
    /** Mono PCM at info().sample_rate; Error(BadAudio) for non-finite samples. */
    SpeakerActivities diarize(const float * pcm, size_t n_samples, bool streaming, const std::atomic<bool> * abort = nullptr);
    std::unique_ptr<DiarizerStream> create_stream();

    struct Impl;

private:
    DiarizerModel() = default;
    std::unique_ptr<Impl> impl_;
    friend class DiarizerStream;
};

class DiarizerStream {
public:
    ~DiarizerStream();
    /** Appends samples; returns the frames that became final (whole chunks with their right context). */
    SpeakerActivities push(const float * pcm, size_t n_samples, const std::atomic<bool> * abort = nullptr);
    /** The end of the audio: the remaining frames. The stream is then spent. */
    SpeakerActivities finish(const std::atomic<bool> * abort = nullptr);
    /** push() of the last samples and finish() in one call. */
    SpeakerActivities finish_with(const float * pcm, size_t n_samples, const std::atomic<bool> * abort = nullptr);
    /** Frames returned so far. */
    int frames_done() const;

    struct Impl;

private:
    explicit DiarizerStream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
    friend class DiarizerModel;
};

}  // namespace parakeet
