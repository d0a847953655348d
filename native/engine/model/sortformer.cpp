// DiarizerModel and DiarizerStream (parakeet/diarizer.h): NeMo SortformerEncLabelModel's forward
// (offline) and forward_streaming / streaming_feat_loader / forward_streaming_step (streaming), on the
// engine's FastConformer (encoder.h), the transformer graph (sortformer_head.h) and the speaker cache
// (sortformer_cache.h).
#include "parakeet/diarizer.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "compute_backend.h"
#include "encoder.h"
#include "model_schema.h"
#include "model_weights.h"
#include "parakeet/parakeet.h"
#include "preprocessor.h"
#include "shared_gguf.h"
#include "sortformer_cache.h"
#include "sortformer_head.h"
#include "sortformer_hparams.h"

namespace parakeet {

struct DiarizerModel::Impl {
    DiarizerInfo info;
    Hparams hp;
    SortformerHparams sp;
    std::shared_ptr<const GgufFile> file;
    std::unique_ptr<ComputeBackend> backend;
    std::unique_ptr<ModelWeights> weights;
    std::unique_ptr<Encoder> encoder;
    std::unique_ptr<SortformerHead> head;
    std::mutex compute_lock;  // the encoder's graphs and arena are one computation's at a time

    /**
     * Activities [n_rows][S] of pre-encoded rows (NeMo frontend_encoder with bypass_pre_encode, then
     * forward_infer), into `activities`; `buffers` hold the host memory of the run.
     */
    void activities_of_rows(const float * rows, int n_rows, EncoderBuffers & buffers, std::vector<float> & activities,
                            const std::atomic<bool> * abort) {
        const EncoderOutput & enc = encoder->encode_pre_encoded(rows, n_rows, buffers, abort);
        head->speaker_activities(enc.encoded.data(), n_rows, activities, abort);
    }
};

namespace {

void check_audio(const float * pcm, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(pcm[i])) throw Error(ErrorCode::BadAudio, "sample " + std::to_string(i) + " is not a finite number");
    }
}

/** Sets `mel` ([M][T], all frames valid; its memory reused) to rows [first, first + count) of [t][M] rows. */
void mel_of_rows(const std::vector<float> & rows, int first, int count, int n_mels, MelSpectrogram & mel) {
    mel.n_mels = n_mels;
    mel.n_frames = count;
    mel.valid_frames = count;
    mel.data.resize(size_t(count) * size_t(n_mels));
    for (int t = 0; t < count; ++t) {
        for (int m = 0; m < n_mels; ++m) mel.data[size_t(m) * size_t(count) + size_t(t)] = rows[size_t(first + t) * size_t(n_mels) + size_t(m)];
    }
}

SpeakerActivities empty_activities(const DiarizerInfo & info) {
    SpeakerActivities a;
    a.frame_sec = info.frame_sec;
    a.n_speakers = info.n_speakers;
    return a;
}

}  // namespace

/**
 * The streaming loop of NeMo's streaming_feat_loader + forward_streaming_step over mel rows that arrive
 * as they are computed: a chunk runs once its right context has arrived, the last ones at finish().
 * Every chunk but the last has one shape, so the chunk's host buffers (a few megabytes: its mel, the
 * encoder's rows, the [cache, FIFO, chunk] input) are the stream's, sized by the first chunk and reused:
 * a stream running for hours allocates none per chunk (test/native/sortformer-memory.test.ts).
 */
struct DiarizerStream::Impl {
    std::shared_ptr<DiarizerModel> model;
    DiarizerModel::Impl & m;
    StreamingLogMel mel;
    SortformerCache cache;
    MelSpectrogram chunk_mel;
    EncoderBuffers encoder_buffers;
    std::vector<float> encoder_input;  // [spkcache, FIFO, chunk] pre-encoded rows
    std::vector<float> preds;          // their activities
    std::vector<float> rows;           // mel rows [t][M] from absolute frame rows_first
    int rows_first = 0;
    int chunk_start = 0;  // NeMo stt_feat, absolute mel frame
    size_t samples = 0;
    int frames_done = 0;
    bool finished = false;

    explicit Impl(std::shared_ptr<DiarizerModel> owner)
            : model(std::move(owner)),
              m(*model->impl_),
              mel(m.hp, m.weights->preprocessor),
              cache(m.sp.fc_d_model, m.sp.n_speakers) {}

    int rows_end() const { return rows_first + int(rows.size() / size_t(m.hp.n_mels)); }

    /** One forward_streaming_step over mel frames [stt − left, end + right). */
    void run_chunk(int end, int right, SpeakerActivities & out, const std::atomic<bool> * abort) {
        const int factor = m.hp.subsampling_factor;
        const int left = std::min(m.sp.chunk_left_context * factor, chunk_start);
        mel_of_rows(rows, chunk_start - left - rows_first, left + (end - chunk_start) + right, m.hp.n_mels, chunk_mel);
        int chunk_rows = 0;
        m.encoder->pre_encode(chunk_mel, chunk_rows, encoder_buffers, abort);
        const std::vector<float> & chunk = encoder_buffers.subsampled;
        cache.prefix(encoder_input);
        const int n_rows = cache.prefix_frames() + chunk_rows;
        encoder_input.insert(encoder_input.end(), chunk.begin(), chunk.end());
        m.activities_of_rows(encoder_input.data(), n_rows, encoder_buffers, preds, abort);
        const int lc = left / factor;                  // NeMo round(left_offset / subsampling_factor)
        const int rc = (right + factor - 1) / factor;  // NeMo ceil(right_offset / subsampling_factor)
        const std::vector<float> chunk_preds =
                sortformer_streaming_update(m.sp, m.head->learnable_sil_emb(), cache, chunk, chunk_rows, lc, rc, preds);
        out.values.insert(out.values.end(), chunk_preds.begin(), chunk_preds.end());
        out.frames += int(chunk_preds.size() / size_t(m.sp.n_speakers));
        chunk_start = end;
        // Only the next chunk's left context is read again.
        const int keep_from = std::max(rows_first, chunk_start - m.sp.chunk_left_context * factor);
        rows.erase(rows.begin(), rows.begin() + std::ptrdiff_t(size_t(keep_from - rows_first) * size_t(m.hp.n_mels)));
        rows_first = keep_from;
    }

    SpeakerActivities step(const float * pcm, size_t n, bool end_of_audio, const std::atomic<bool> * abort) {
        if (finished) throw Error(ErrorCode::BadArgument, "this diarization stream has finished; create a new one");
        check_audio(pcm, n);
        std::lock_guard<std::mutex> guard(m.compute_lock);
        SpeakerActivities out = empty_activities(m.info);
        mel.push(pcm, n);
        samples += n;
        mel.take(end_of_audio, rows);
        const int factor = m.hp.subsampling_factor;
        const int span = m.sp.chunk_len * factor, right_span = m.sp.chunk_right_context * factor;
        if (!end_of_audio) {
            while (chunk_start + span + right_span <= rows_end()) run_chunk(chunk_start + span, right_span, out, abort);
        } else {
            // NeMo feeds the valid frames only (get_seq_len: ⌊samples / hop⌋), not the final zeroed one.
            const int feat_len = int(samples / size_t(m.hp.hop_length));
            while (chunk_start < feat_len) {
                const int end = std::min(chunk_start + span, feat_len);
                run_chunk(end, std::min(right_span, feat_len - end), out, abort);
            }
            finished = true;
        }
        frames_done += out.frames;
        return out;
    }
};

DiarizerModel::~DiarizerModel() = default;

std::shared_ptr<DiarizerModel> DiarizerModel::load(const std::string & path, const DiarizerLoadParams & params) {
    auto impl = std::make_unique<Impl>();
    impl->file = open_shared_gguf(path, true);
    const GgufFile & f = *impl->file;
    check_diarizer_identity(f);
    impl->hp = read_frontend_hparams(f);
    validate_tensors(f, impl->hp);
    impl->sp = read_sortformer_hparams(f, impl->hp);
    DeviceSelection selection = select_device(params.device);
    impl->backend = std::make_unique<ComputeBackend>(selection, params.n_threads);
    impl->weights = std::make_unique<ModelWeights>(
            f, impl->hp, *impl->backend, params.weight_type, true, [](float) {}, nullptr);
    impl->encoder = std::make_unique<Encoder>(impl->hp, impl->weights->encoder, impl->weights->packed, *impl->backend);
    impl->head = std::make_unique<SortformerHead>(f, impl->sp, *impl->backend);

    DiarizerInfo & info = impl->info;
    info.path = path;
    info.name = impl->hp.name;
    info.n_speakers = impl->sp.n_speakers;
    info.frame_sec = impl->hp.frame_sec();
    info.sample_rate = impl->hp.sample_rate;
    info.streaming_mode = impl->sp.streaming_mode;
    info.chunk_len = impl->sp.chunk_len;
    info.chunk_left_context = impl->sp.chunk_left_context;
    info.chunk_right_context = impl->sp.chunk_right_context;
    info.spkcache_len = impl->sp.spkcache_len;
    info.fifo_len = impl->sp.fifo_len;
    info.spkcache_update_period = impl->sp.spkcache_update_period;
    info.encoder_layers = impl->hp.n_layers;
    info.transformer_layers = impl->sp.tf_layers;
    info.onset_threshold = impl->sp.onset_threshold;
    info.offset_threshold = impl->sp.offset_threshold;
    info.device = impl->backend->device_name();
    info.n_threads = impl->backend->threads();
    std::shared_ptr<DiarizerModel> model(new DiarizerModel());
    model->impl_ = std::move(impl);
    return model;
}

const DiarizerInfo & DiarizerModel::info() const { return impl_->info; }

SpeakerActivities DiarizerModel::diarize(const float * pcm, size_t n, bool streaming, const std::atomic<bool> * abort) {
    if (streaming) {
        std::unique_ptr<DiarizerStream> stream = create_stream();
        return stream->finish_with(pcm, n, abort);
    }
    check_audio(pcm, n);
    Impl & m = *impl_;
    // NeMo process_signal without streaming_mode: the clip scaled by 1 / (max + 1e-3) (its largest sample, not |x|).
    float peak = -INFINITY;
    for (size_t i = 0; i < n; ++i) peak = std::max(peak, pcm[i]);
    const float scale = n > 0 ? 1.0f / (peak + 1e-3f) : 1.0f;
    std::vector<float> scaled(pcm, pcm + n);
    for (float & s : scaled) s *= scale;
    std::lock_guard<std::mutex> guard(m.compute_lock);
    SpeakerActivities out = empty_activities(m.info);
    const MelSpectrogram full = compute_log_mel(scaled.data(), scaled.size(), m.hp, m.weights->preprocessor, abort);
    if (full.valid_frames == 0) return out;
    // NeMo slices the features to their valid length (the final zeroed frame is not fed).
    MelSpectrogram mel;
    mel.n_mels = full.n_mels;
    mel.n_frames = mel.valid_frames = full.valid_frames;
    mel.data.resize(size_t(mel.n_frames) * size_t(mel.n_mels));
    for (int k = 0; k < mel.n_mels; ++k) {
        std::copy(full.data.begin() + std::ptrdiff_t(size_t(k) * size_t(full.n_frames)),
                  full.data.begin() + std::ptrdiff_t(size_t(k) * size_t(full.n_frames) + size_t(mel.n_frames)),
                  mel.data.begin() + std::ptrdiff_t(size_t(k) * size_t(mel.n_frames)));
    }
    int rows = 0;
    EncoderBuffers buffers;
    m.encoder->pre_encode(mel, rows, buffers, abort);
    m.activities_of_rows(buffers.subsampled.data(), rows, buffers, out.values, abort);
    out.frames = rows;
    return out;
}

std::unique_ptr<DiarizerStream> DiarizerModel::create_stream() {
    return std::unique_ptr<DiarizerStream>(new DiarizerStream(std::make_unique<DiarizerStream::Impl>(shared_from_this())));
}

DiarizerStream::DiarizerStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DiarizerStream::~DiarizerStream() = default;

SpeakerActivities DiarizerStream::push(const float * pcm, size_t n, const std::atomic<bool> * abort) { return impl_->step(pcm, n, false, abort); }
SpeakerActivities DiarizerStream::finish(const std::atomic<bool> * abort) { return impl_->step(nullptr, 0, true, abort); }
SpeakerActivities DiarizerStream::finish_with(const float * pcm, size_t n, const std::atomic<bool> * abort) {
    return impl_->step(pcm, n, true, abort);
}
int DiarizerStream::frames_done() const { return impl_->frames_done; }

}  // namespace parakeet
