// Silero VAD v5/v6 on ggml (spec §8). Per 32 ms chunk, as silero-vad's VADRNNJITMerge.forward:
//   window = context | chunk  →  reflect pad right (STFT.padding)  →  STFT as a stride-hop conv with the stored
//   windowed DFT basis  →  magnitude sqrt(re² + im²)  →  4 × (conv1d k3 pad 1 + bias, ReLU; strides 1,2,2,1)
//   →  LSTMCell (gates i, f, g, o)  →  sigmoid(conv1d_1x1(ReLU(h)) + b).
// Each stream owns a one-thread CPU backend and a graph built once, so its calls never touch the ASR
// states' thread pools or buffers.
#include "silero_vad.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "bundle_format.h"
#include "parakeet/vad.h"

namespace parakeet {
namespace {

constexpr int kEncoderLayers = 4;
constexpr int kKernel = 3;
const int kChannels[kEncoderLayers] = {128, 64, 64, 128};
const int kStrides[kEncoderLayers] = {1, 2, 2, 1};

ggml_backend_dev_t cpu_device() {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (dev == nullptr) throw Error(ErrorCode::DeviceUnavailable, "no CPU backend is registered in this build of ggml");
    return dev;
}

/** The file's tensor `name`, checked against its PyTorch shape; F32 only unless `f16_ok`. */
const ggml_tensor * expect_tensor(const GgufFile & f, const std::string & name, std::vector<int64_t> torch_shape, bool f16_ok) {
    const ggml_tensor * t = f.tensor(name);
    if (t == nullptr) f.fail("missing tensor '" + name + "' (a Silero VAD GGUF has 15 tensors per sample rate; convert the ONNX again)");
    std::string want, got;
    for (size_t i = 0; i < torch_shape.size(); ++i) {
        const int64_t ne = t->ne[torch_shape.size() - 1 - i];
        want += (i ? ", " : "") + std::to_string(torch_shape[i]);
        got += (i ? ", " : "") + std::to_string(ne);
        if (ne != torch_shape[i]) want += "!";
    }
    if (want.find('!') != std::string::npos || ggml_n_dims(t) > int(torch_shape.size())) {
        std::string clean = want;
        clean.erase(std::remove(clean.begin(), clean.end(), '!'), clean.end());
        f.fail("tensor '" + name + "' has shape [" + got + "], expected [" + clean + "]");
    }
    if (!(t->type == GGML_TYPE_F32 || (f16_ok && t->type == GGML_TYPE_F16))) {
        f.fail("tensor '" + name + "' is " + ggml_type_name(t->type) + (f16_ok ? ", expected F32 or F16" : ", expected F32"));
    }
    return t;
}

constexpr size_t kAllFinite = SIZE_MAX;

/**
 * The first NaN or infinity among an F32 or F16 tensor's elements (kAllFinite when none). A damaged weight
 * does not fail anything downstream: the model would load and answer every chunk with NaN or one constant.
 */
size_t first_non_finite(const ggml_tensor * t, const uint8_t * data) {
    const size_t n = size_t(ggml_nelements(t));
    for (size_t i = 0; i < n; ++i) {
        if (t->type == GGML_TYPE_F16) {
            uint16_t h;
            std::memcpy(&h, data + i * sizeof(h), sizeof(h));
            if ((h & 0x7c00u) == 0x7c00u) return i;  // exponent all ones: infinity or NaN
        } else {
            float v;
            std::memcpy(&v, data + i * sizeof(v), sizeof(v));
            if (!std::isfinite(v)) return i;
        }
    }
    return kAllFinite;
}

int expect_uint(const GgufFile & f, const std::string & key, int expected) {
    const int64_t v = f.get_int(key.c_str(), -1);
    if (v != expected) {
        f.fail("'" + key + "' is " + (v < 0 ? std::string("missing") : std::to_string(v)) + ", expected " + std::to_string(expected) +
               " (Silero VAD v5/v6)");
    }
    return int(v);
}

/**
 * What a parakeet-family file (general.architecture 'parakeet') given as the VAD is. parakeet.arch tells a speech
 * model from the family's other kinds: a Sortformer diarizer or a Moondream VAD-only slice is not a speech
 * recognition model, and calling it one sends the user looking for the wrong file.
 */
std::string parakeet_family_refusal(const std::string & parakeet_arch) {
    static const char * const kGive = "give a Silero VAD GGUF (general.architecture = 'silero_vad')";
    static const std::set<std::string> asr_arches = {"ctc", "rnnt", "tdt", "hybrid_rnnt_ctc", "hybrid_tdt_ctc"};
    if (parakeet_arch == "vad") {
        return std::string(
                       "this is a VAD-only slice (parakeet.arch = 'vad'): the voice-activity head cut out of a Moondream Ultra/Redux "
                       "model, which this app does not run; it is not a Silero voice-activity model; ") +
               kGive;
    }
    if (parakeet_arch == "diarization") {
        return std::string("this is a speaker-diarization model (parakeet.arch = 'diarization', Sortformer), not a voice-activity model; ") + kGive;
    }
    if (asr_arches.count(parakeet_arch) != 0) {
        return "this is a Parakeet speech recognition model (general.architecture = 'parakeet', parakeet.arch = " + quoted_value(parakeet_arch) +
               "), not a voice-activity model; " + kGive;
    }
    return "general.architecture is 'parakeet' but " +
           (parakeet_arch.empty() ? std::string("there is no 'parakeet.arch' key") : "parakeet.arch is " + quoted_value(parakeet_arch)) +
           ": a file of the Parakeet family, not a voice-activity model; " + kGive;
}

/** conv1d as ggml_conv_1d does it, but with an F32 im2col (ggml_conv_1d's is F16 and would cost 1e-3). x: ne [L, IC]. */
ggml_tensor * conv1d(ggml_context * ctx, ggml_tensor * w, ggml_tensor * x, int stride, int pad) {
    ggml_tensor * cols = ggml_im2col(ctx, w, x, stride, 0, pad, 0, 1, 0, false, GGML_TYPE_F32);  // ne [IC·K, OL]
    cols = ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[1] * cols->ne[2]);
    ggml_tensor * w2 = ggml_reshape_2d(ctx, w, w->ne[0] * w->ne[1], w->ne[2]);  // ne [IC·K, OC]
    return ggml_mul_mat(ctx, w2, cols);                                         // ne [OC, OL]: channels first, the layout a bias broadcasts over
}

/** ne [C, T] → ne [T, C], the layout im2col reads. */
ggml_tensor * time_major(ggml_context * ctx, ggml_tensor * x) { return ggml_cont(ctx, ggml_transpose(ctx, x)); }

}  // namespace

SileroWeights::SileroWeights(const GgufFile & f, int rate) : sample_rate(rate) {
    const std::string key = "silero_vad." + std::to_string(rate) + ".";
    const bool r16 = rate == 16000;
    chunk_samples = expect_uint(f, key + "chunk_samples", r16 ? 512 : 256);
    context_samples = expect_uint(f, key + "context_samples", r16 ? 64 : 32);
    n_fft = expect_uint(f, key + "stft.n_fft", r16 ? 256 : 128);
    hop = expect_uint(f, key + "stft.hop", n_fft / 2);
    right_pad = expect_uint(f, key + "stft.right_reflect_pad", n_fft / 4);
    hidden = expect_uint(f, "silero_vad.lstm.hidden", 128);
    expect_uint(f, "silero_vad.encoder.kernel", kKernel);
    expect_uint(f, "silero_vad.encoder.n_layers", kEncoderLayers);

    const std::string p = r16 ? "vad16k." : "vad8k.";
    const int64_t bins = n_fft / 2 + 1;
    struct Wanted {
        std::string name;
        std::vector<int64_t> shape;
        bool f16_ok;
        ggml_tensor ** slot;
    };
    std::vector<Wanted> wanted = {{"stft.forward_basis_buffer", {2 * bins, 1, n_fft}, false, &stft_basis}};
    int64_t in_ch = bins;
    for (int i = 0; i < kEncoderLayers; ++i) {
        const std::string e = "encoder." + std::to_string(i) + ".reparam_conv.";
        wanted.push_back({e + "weight", {kChannels[i], in_ch, kKernel}, true, &conv_w[size_t(i)]});
        wanted.push_back({e + "bias", {kChannels[i]}, false, &conv_b[size_t(i)]});
        conv_stride[size_t(i)] = kStrides[i];
        in_ch = kChannels[i];
    }
    const int64_t gates = 4 * int64_t(hidden);
    wanted.push_back({"decoder.rnn.weight_ih", {gates, hidden}, true, &w_ih});
    wanted.push_back({"decoder.rnn.weight_hh", {gates, hidden}, true, &w_hh});
    wanted.push_back({"decoder.rnn.bias_ih", {gates}, false, &b_ih});
    wanted.push_back({"decoder.rnn.bias_hh", {gates}, false, &b_hh});
    wanted.push_back({"decoder.decoder.2.weight", {1, hidden, 1}, true, &out_w});
    wanted.push_back({"decoder.decoder.2.bias", {1}, false, &out_b});

    ggml_init_params params = {ggml_tensor_overhead() * (wanted.size() + 1), nullptr, true};
    ctx_ = ggml_init(params);
    if (ctx_ == nullptr) throw Error(ErrorCode::OutOfMemory, "cannot allocate the Silero VAD weight context");
    std::vector<std::pair<const ggml_tensor *, ggml_tensor *>> copies;
    for (const Wanted & w : wanted) {
        const ggml_tensor * src = expect_tensor(f, p + w.name, w.shape, w.f16_ok);
        if (src->type == GGML_TYPE_F16) f16 = true;
        ggml_tensor * dst = ggml_dup_tensor(ctx_, src);
        ggml_set_name(dst, src->name);
        *w.slot = dst;
        copies.emplace_back(src, dst);
    }
    buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_, ggml_backend_dev_buffer_type(cpu_device()));
    if (buffer_ == nullptr) throw Error(ErrorCode::OutOfMemory, "cannot allocate the Silero VAD weights");
    std::vector<uint8_t> bytes;
    for (auto & [src, dst] : copies) {
        bytes.resize(ggml_nbytes(src));
        f.read_tensor(src, bytes.data());
        const size_t bad = first_non_finite(src, bytes.data());
        if (bad != kAllFinite) {
            f.fail(std::string("tensor '") + ggml_get_name(src) + "' holds NaN or infinite values (the first at element " + std::to_string(bad) +
                   "): the weights are damaged; convert or download the Silero VAD again");
        }
        ggml_backend_tensor_set(dst, bytes.data(), 0, bytes.size());
    }
}

SileroWeights::~SileroWeights() {
    if (buffer_ != nullptr) ggml_backend_buffer_free(buffer_);
    if (ctx_ != nullptr) ggml_free(ctx_);
}

SileroChunkGraph build_silero_chunk_graph(ggml_context * ctx, const SileroWeights & w) {
    SileroChunkGraph g;
    g.graph = ggml_new_graph_custom(ctx, 128, false);
    const int window = w.context_samples + w.chunk_samples;
    g.window = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, window, 1);
    g.h_in = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, w.hidden);
    g.c_in = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, w.hidden);
    for (ggml_tensor * t : {g.window, g.h_in, g.c_in}) ggml_set_input(t);

    // STFT (silero's STFT.transform_): right reflect pad, conv with the windowed DFT basis, magnitude.
    ggml_tensor * padded = ggml_pad_reflect_1d(ctx, g.window, 0, w.right_pad);
    ggml_tensor * spec = conv1d(ctx, w.stft_basis, padded, w.hop, 0);  // ne [2·bins, frames]
    const int64_t bins = w.n_fft / 2 + 1;
    const int64_t frames = spec->ne[1];
    ggml_tensor * re = ggml_view_2d(ctx, spec, bins, frames, spec->nb[1], 0);
    ggml_tensor * im = ggml_view_2d(ctx, spec, bins, frames, spec->nb[1], size_t(bins) * sizeof(float));
    ggml_tensor * x = ggml_sqrt(ctx, ggml_add(ctx, ggml_sqr(ctx, ggml_cont(ctx, re)), ggml_sqr(ctx, ggml_cont(ctx, im))));

    // Encoder: SileroVadBlock × 4 (reparameterised conv, ReLU).
    for (size_t i = 0; i < w.conv_w.size(); ++i) {
        x = conv1d(ctx, w.conv_w[i], time_major(ctx, x), w.conv_stride[i], 1);
        x = ggml_relu(ctx, ggml_add(ctx, x, w.conv_b[i]));
    }
    // x: ne [128, 1], the one frame the 4 frames reduce to.

    // Decoder: nn.LSTMCell, gates = W_ih·x + b_ih + W_hh·h + b_hh, split i, f, g, o.
    ggml_tensor * gates =
            ggml_add(ctx, ggml_add(ctx, ggml_mul_mat(ctx, w.w_ih, x), w.b_ih), ggml_add(ctx, ggml_mul_mat(ctx, w.w_hh, g.h_in), w.b_hh));
    gates = ggml_reshape_1d(ctx, gates, 4 * int64_t(w.hidden));
    const size_t gate_bytes = size_t(w.hidden) * sizeof(float);
    auto gate = [&](int k) { return ggml_view_1d(ctx, gates, w.hidden, size_t(k) * gate_bytes); };
    ggml_tensor * in_gate = ggml_sigmoid(ctx, gate(0));
    ggml_tensor * forget_gate = ggml_sigmoid(ctx, gate(1));
    ggml_tensor * cell_gate = ggml_tanh(ctx, gate(2));
    ggml_tensor * out_gate = ggml_sigmoid(ctx, gate(3));
    g.c_out = ggml_add(ctx, ggml_mul(ctx, forget_gate, g.c_in), ggml_mul(ctx, in_gate, cell_gate));
    g.h_out = ggml_mul(ctx, out_gate, ggml_tanh(ctx, g.c_out));

    // decoder.decoder: Dropout (identity), ReLU, Conv1d(hidden → 1, k 1), Sigmoid.
    ggml_tensor * proj = ggml_reshape_2d(ctx, w.out_w, w.hidden, 1);
    g.prob = ggml_sigmoid(ctx, ggml_add(ctx, ggml_mul_mat(ctx, proj, ggml_relu(ctx, g.h_out)), w.out_b));
    for (ggml_tensor * t : {g.prob, g.h_out, g.c_out}) {
        ggml_set_output(t);
        ggml_build_forward_expand(g.graph, t);
    }
    return g;
}

// ---------------------------------------------------------------- VadModel

std::shared_ptr<const VadModel> VadModel::load(const std::string & path) {
    std::unique_ptr<GgufFile> f = GgufFile::open(path, false);
    // A parakeet.cpp bundle carrying a Silero VAD: its "vad" component, read through a prefixed view.
    const bool bundle = is_bundle(*f);
    if (bundle) read_bundle_component(*f, "vad");
    const std::string arch = f->get_string("general.architecture", "");
    if (arch != "silero_vad") {
        if (arch == "parakeet") f->fail(parakeet_family_refusal(f->get_string("parakeet.arch", "")));
        f->fail((arch.empty() ? std::string("no 'general.architecture' key") : "general.architecture is " + quoted_value(arch)) +
                ": not a Silero VAD model (expected 'silero_vad'; convert silero_vad.onnx v5 or v6 first)");
    }
    const std::vector<int64_t> rates = f->get_int_array("silero_vad.sample_rates");
    const std::set<int64_t> rate_set(rates.begin(), rates.end());
    if (rate_set != std::set<int64_t>{8000, 16000}) {
        f->fail("'silero_vad.sample_rates' must be [8000, 16000] (both weight sets), found " + std::to_string(rates.size()) + " rates");
    }
    std::shared_ptr<VadModel> model(new VadModel());
    model->rate16k_ = std::make_unique<SileroWeights>(*f, 16000);
    model->rate8k_ = std::make_unique<SileroWeights>(*f, 8000);
    VadModelInfo & info = model->info_;
    info.path = path;
    info.name = f->get_string("general.name", "");
    info.source_version = f->get_string("silero_vad.source.version", "");
    info.source_sha256 = f->get_string("silero_vad.source.sha256", "");
    info.weight_type = model->rate16k_->f16 ? "f16" : "f32";
    info.sample_rates = {8000, 16000};
    info.file_size = f->file_size();
    if (bundle) info.bundle_component = f->name_prefix().substr(0, f->name_prefix().size() - 1);
    return model;
}

VadModel::~VadModel() = default;

const SileroWeights & VadModel::weights(int sample_rate) const {
    if (sample_rate == 16000) return *rate16k_;
    if (sample_rate == 8000) return *rate8k_;
    throw Error(ErrorCode::BadArgument, "Silero VAD runs at 16000 or 8000 Hz, not " + std::to_string(sample_rate) + " Hz; resample to 16 kHz first");
}

int VadModel::chunk_samples(int sample_rate) const { return weights(sample_rate).chunk_samples; }

// ---------------------------------------------------------------- VadStream

struct VadStream::Compute {
    ggml_backend_t backend = nullptr;
    ggml_context * ctx = nullptr;
    ggml_gallocr_t allocr = nullptr;
    SileroChunkGraph graph;

    ~Compute() {
        if (allocr != nullptr) ggml_gallocr_free(allocr);
        if (ctx != nullptr) ggml_free(ctx);
        if (backend != nullptr) ggml_backend_free(backend);
    }
};

VadStream::VadStream(std::shared_ptr<const VadModel> model, int sample_rate)
        : model_(std::move(model)),
          weights_(&model_->weights(sample_rate)),
          sample_rate_(sample_rate),
          chunk_(weights_->chunk_samples) {
    window_.assign(size_t(weights_->context_samples + chunk_), 0.0f);
    h_.assign(size_t(weights_->hidden), 0.0f);
    c_.assign(size_t(weights_->hidden), 0.0f);
    compute_ = std::make_unique<Compute>();
    ggml_backend_dev_t dev = cpu_device();
    compute_->backend = ggml_backend_dev_init(dev, nullptr);
    if (compute_->backend == nullptr) throw Error(ErrorCode::DeviceUnavailable, "the CPU backend failed to initialize for the VAD");
    // One thread: a chunk is ~0.1 MFLOP, far below what a second thread would pay back.
    auto set_threads = reinterpret_cast<ggml_backend_set_n_threads_t>(
            ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(dev), "ggml_backend_set_n_threads"));
    if (set_threads != nullptr) set_threads(compute_->backend, 1);
    ggml_init_params params = {ggml_tensor_overhead() * 128 + ggml_graph_overhead_custom(128, false), nullptr, true};
    compute_->ctx = ggml_init(params);
    if (compute_->ctx == nullptr) throw Error(ErrorCode::OutOfMemory, "cannot allocate the VAD graph context");
    compute_->graph = build_silero_chunk_graph(compute_->ctx, *weights_);
    compute_->allocr = ggml_gallocr_new(ggml_backend_get_default_buffer_type(compute_->backend));
    if (compute_->allocr == nullptr || !ggml_gallocr_alloc_graph(compute_->allocr, compute_->graph.graph)) {
        throw Error(ErrorCode::OutOfMemory, "cannot allocate the VAD graph's buffers");
    }
}

VadStream::~VadStream() = default;

namespace {
/** Marks a stream busy for one call; a second concurrent call is refused (Busy). */
class BusyGuard {
public:
    explicit BusyGuard(std::atomic<bool> & flag) : flag_(flag) {
        if (flag_.exchange(true)) throw Error(ErrorCode::Busy, "this VAD stream is already processing audio; use one stream per source");
    }
    ~BusyGuard() { flag_.store(false); }
    BusyGuard(const BusyGuard &) = delete;
    BusyGuard & operator=(const BusyGuard &) = delete;

private:
    std::atomic<bool> & flag_;
};
}  // namespace

/**
 * Float PCM lies in [-1, 1], and 16-bit PCM handed over unscaled (up to 32768) still computes. A sample past
 * this is not audio; from about 1e17 on, the STFT's squared magnitudes overflow float, and the NaN that
 * follows would stay in the LSTM state: every later probability of the stream would be one constant.
 */
constexpr float kMaxAmplitude = 1e6f;

float VadStream::run_chunk(const float * chunk) {
    const size_t ctx_n = size_t(weights_->context_samples);
    std::memcpy(window_.data() + ctx_n, chunk, size_t(chunk_) * sizeof(float));
    const SileroChunkGraph & g = compute_->graph;
    ggml_backend_tensor_set(g.window, window_.data(), 0, window_.size() * sizeof(float));
    ggml_backend_tensor_set(g.h_in, h_.data(), 0, h_.size() * sizeof(float));
    ggml_backend_tensor_set(g.c_in, c_.data(), 0, c_.size() * sizeof(float));
    if (ggml_backend_graph_compute(compute_->backend, g.graph) != GGML_STATUS_SUCCESS) {
        throw Error(ErrorCode::Internal, "the VAD graph failed to compute");
    }
    float prob = 0.0f;
    ggml_backend_tensor_get(g.prob, &prob, 0, sizeof(float));
    ggml_backend_tensor_get(g.h_out, h_.data(), 0, h_.size() * sizeof(float));
    ggml_backend_tensor_get(g.c_out, c_.data(), 0, c_.size() * sizeof(float));
    // Samples within kMaxAmplitude and finite weights keep every value finite; should a file's weights still
    // overflow, a NaN state must not be kept (the caller restores the stream as it was before the call).
    bool finite = std::isfinite(prob);
    for (size_t i = 0; i < h_.size(); ++i) finite = finite && std::isfinite(h_[i]) && std::isfinite(c_[i]);
    if (!finite) {
        throw Error(
                ErrorCode::BadAudio,
                "the VAD model's values overflowed on this audio (a probability or the LSTM state is not finite); the stream is as before this call");
    }
    // The next chunk's context: this window's last context_samples samples.
    std::memmove(window_.data(), window_.data() + window_.size() - ctx_n, ctx_n * sizeof(float));
    return prob;
}

namespace {
/** A stream's state, restored when a call fails part-way: a refused call leaves the stream as it found it. */
struct StreamSnapshot {
    std::vector<float> window, pending, h, c;

    void restore(std::vector<float> & window_to, std::vector<float> & pending_to, std::vector<float> & h_to, std::vector<float> & c_to) const {
        window_to = window;
        pending_to = pending;
        h_to = h;
        c_to = c;
    }
};

std::string short_number(float v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", double(v));
    return text;
}
}  // namespace

std::vector<float> VadStream::push(const float * samples, size_t n) {
    BusyGuard guard(busy_);
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(samples[i])) {
            throw Error(ErrorCode::BadAudio, "audio sample " + std::to_string(i) + " is not a finite number (NaN or infinity)");
        }
        if (std::fabs(samples[i]) > kMaxAmplitude) {
            throw Error(ErrorCode::BadAudio, "audio sample " + std::to_string(i) + " is " + short_number(samples[i]) +
                                                     ": not audio (float samples lie in -1..1); decode or scale the audio correctly");
        }
    }
    const StreamSnapshot before{window_, pending_, h_, c_};
    try {
        std::vector<float> probs;
        size_t at = 0;
        if (!pending_.empty()) {
            const size_t take = std::min(n, size_t(chunk_) - pending_.size());
            pending_.insert(pending_.end(), samples, samples + take);
            at = take;
            if (pending_.size() == size_t(chunk_)) {
                probs.push_back(run_chunk(pending_.data()));
                pending_.clear();
            }
        }
        for (; at + size_t(chunk_) <= n; at += size_t(chunk_)) probs.push_back(run_chunk(samples + at));
        pending_.insert(pending_.end(), samples + at, samples + n);
        return probs;
    } catch (...) {
        before.restore(window_, pending_, h_, c_);
        throw;
    }
}

std::vector<float> VadStream::flush() {
    BusyGuard guard(busy_);
    if (pending_.empty()) return {};
    const StreamSnapshot before{window_, pending_, h_, c_};
    try {
        pending_.resize(size_t(chunk_), 0.0f);
        const float prob = run_chunk(pending_.data());
        pending_.clear();
        return {prob};
    } catch (...) {
        before.restore(window_, pending_, h_, c_);
        throw;
    }
}

void VadStream::reset() {
    BusyGuard guard(busy_);
    std::fill(window_.begin(), window_.end(), 0.0f);
    std::fill(h_.begin(), h_.end(), 0.0f);
    std::fill(c_.begin(), c_.end(), 0.0f);
    pending_.clear();
}

}  // namespace parakeet
