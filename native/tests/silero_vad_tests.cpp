// Silero VAD (parakeet/vad.h) without the addon: a speech model or a half-written VAD file is refused
// naming what it is; a stream's probabilities do not depend on how its samples are split into pushes;
// two streams of one model keep separate states; bad rates and non-finite samples are refused.
// The model here has random weights in the spec §8 layout (its numbers are checked against ONNX Runtime
// and a float64 reference in test/native/silero-vad.test.ts).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "parakeet/vad.h"
#include "test_files.h"

using namespace parakeet;
using parakeet_tests::scratch;

namespace {

/** A Silero GGUF with both rates' 15 tensors of random values (deterministic); `damaged`'s element 7 is `bad`. */
void write_random_silero(const std::string & path, const std::string & damaged = "", float bad = 0.0f) {
    gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", "silero_vad");
    gguf_set_val_str(g, "general.name", "silero-vad");
    const int32_t rates[] = {8000, 16000};
    gguf_set_arr_data(g, "silero_vad.sample_rates", GGUF_TYPE_INT32, rates, 2);
    gguf_set_val_u32(g, "silero_vad.encoder.n_layers", 4);
    gguf_set_val_u32(g, "silero_vad.encoder.kernel", 3);
    gguf_set_val_u32(g, "silero_vad.lstm.hidden", 128);
    std::vector<ggml_context *> contexts;
    uint32_t seed = 2024;
    auto add = [&](const std::string & name, std::vector<int64_t> torch_shape, float scale) {
        int64_t n = 1;
        for (int64_t d : torch_shape) n *= d;
        ggml_init_params params = {ggml_tensor_overhead() + size_t(n) * sizeof(float) + 64, nullptr, false};
        ggml_context * ctx = ggml_init(params);
        contexts.push_back(ctx);
        std::vector<int64_t> ne(torch_shape.rbegin(), torch_shape.rend());
        ggml_tensor * t = ggml_new_tensor(ctx, GGML_TYPE_F32, int(ne.size()), ne.data());
        ggml_set_name(t, name.c_str());
        float * data = static_cast<float *>(t->data);
        for (int64_t i = 0; i < n; ++i) {
            seed = seed * 1664525u + 1013904223u;
            data[i] = scale * (float(seed >> 8) / float(1u << 24) - 0.5f);
        }
        if (name == damaged) data[7 % n] = bad;
        gguf_add_tensor(g, t);
    };
    for (int rate : {16000, 8000}) {
        const bool r16 = rate == 16000;
        const std::string key = "silero_vad." + std::to_string(rate) + ".";
        const uint32_t n_fft = r16 ? 256 : 128;
        gguf_set_val_u32(g, (key + "chunk_samples").c_str(), r16 ? 512 : 256);
        gguf_set_val_u32(g, (key + "context_samples").c_str(), r16 ? 64 : 32);
        gguf_set_val_u32(g, (key + "stft.n_fft").c_str(), n_fft);
        gguf_set_val_u32(g, (key + "stft.hop").c_str(), n_fft / 2);
        gguf_set_val_u32(g, (key + "stft.right_reflect_pad").c_str(), n_fft / 4);
        const std::string p = r16 ? "vad16k." : "vad8k.";
        const int64_t bins = n_fft / 2 + 1;
        add(p + "stft.forward_basis_buffer", {2 * bins, 1, n_fft}, 0.2f);
        const int64_t channels[] = {128, 64, 64, 128};
        int64_t in = bins;
        for (int i = 0; i < 4; ++i) {
            const std::string e = p + "encoder." + std::to_string(i) + ".reparam_conv.";
            add(e + "weight", {channels[i], in, 3}, 0.3f);
            add(e + "bias", {channels[i]}, 0.1f);
            in = channels[i];
        }
        add(p + "decoder.rnn.weight_ih", {512, 128}, 0.3f);
        add(p + "decoder.rnn.weight_hh", {512, 128}, 0.3f);
        add(p + "decoder.rnn.bias_ih", {512}, 0.1f);
        add(p + "decoder.rnn.bias_hh", {512}, 0.1f);
        add(p + "decoder.decoder.2.weight", {1, 128, 1}, 1.0f);
        add(p + "decoder.decoder.2.bias", {1}, 0.1f);
    }
    gguf_write_to_file(g, path.c_str(), false);
    for (ggml_context * ctx : contexts) ggml_free(ctx);
    gguf_free(g);
}

std::vector<float> test_signal(size_t n) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = 0.3f * std::sin(float(i) * 0.07f) * std::sin(float(i) * 0.0011f);
    return x;
}

Error load_error(const std::string & path) {
    try {
        VadModel::load(path);
    } catch (const Error & e) {
        return e;
    }
    return Error(ErrorCode::Internal, "loaded");
}

void expect_message(const Error & e, const std::string & says) {
    CHECK(e.code() == ErrorCode::ModelInvalid);
    if (std::string(e.what()).find(says) == std::string::npos) {
        parakeet_tests::fail(__FILE__, __LINE__, std::string("message '") + e.what() + "' should say '" + says + "'");
    }
}

}  // namespace

TEST(vad_model_refuses_speech_models_and_incomplete_files) {
    const std::string asr = scratch("vad-asr.gguf");
    parakeet_tests::write_gguf(asr, "parakeet", "tdt");
    expect_message(load_error(asr), "this is a Parakeet speech recognition model");
    std::remove(asr.c_str());
    const std::string bare = scratch("vad-bare.gguf");
    parakeet_tests::write_gguf(bare, "silero_vad", "");
    expect_message(load_error(bare), "silero_vad.sample_rates");
    std::remove(bare.c_str());
}

TEST(vad_model_names_the_parakeet_family_files_that_are_not_speech_models) {
    // A Sortformer diarizer and a Moondream VAD-only slice share general.architecture 'parakeet' with the speech
    // models; the refusal names what the file is, never "a speech recognition model".
    struct Case {
        const char * parakeet_arch;
        const char * says;
    };
    for (const Case & c :
         {Case{"vad", "this is a VAD-only slice (parakeet.arch = 'vad')"},
          Case{"diarization", "this is a speaker-diarization model (parakeet.arch = 'diarization'"}, Case{"", "there is no 'parakeet.arch' key"}}) {
        const std::string path = scratch("vad-family.gguf");
        parakeet_tests::write_gguf(path, "parakeet", c.parakeet_arch);
        const Error e = load_error(path);
        std::remove(path.c_str());
        expect_message(e, c.says);
        CHECK(std::string(e.what()).find("speech recognition model") == std::string::npos);
    }
}

TEST(vad_stream_is_independent_of_push_sizes_and_of_other_streams) {
    const std::string path = scratch("vad-random.gguf");
    write_random_silero(path);
    std::shared_ptr<const VadModel> model = VadModel::load(path);
    std::remove(path.c_str());
    CHECK(model->info().weight_type == "f32");
    CHECK(model->chunk_samples(16000) == 512 && model->chunk_samples(8000) == 256);
    const std::vector<float> x = test_signal(16000);

    VadStream whole(model, 16000);
    std::vector<float> expected = whole.push(x.data(), x.size());
    for (float p : whole.flush()) expected.push_back(p);
    CHECK(expected.size() == (x.size() + 511) / 512);

    VadStream pieces(model, 16000);
    VadStream other(model, 16000);
    std::vector<float> got;
    size_t at = 0;
    for (size_t n : {size_t(1), size_t(600), size_t(511), size_t(5000), size_t(3)}) {
        for (float p : pieces.push(x.data() + at, n)) got.push_back(p);
        other.push(x.data(), 700);  // another source in between: its state is its own
        at += n;
    }
    for (float p : pieces.push(x.data() + at, x.size() - at)) got.push_back(p);
    for (float p : pieces.flush()) got.push_back(p);
    CHECK(got == expected);
    bool in_range = true;
    for (float p : got) in_range = in_range && p > 0.0f && p < 1.0f;
    CHECK(in_range);

    pieces.reset();
    std::vector<float> again = pieces.push(x.data(), 1024);
    CHECK(again.size() == 2 && again[0] == expected[0] && again[1] == expected[1]);

    VadStream at8k(model, 8000);
    CHECK(at8k.push(x.data(), 1000).size() == 3);
}

TEST(vad_stream_refuses_other_rates_and_non_finite_samples) {
    const std::string path = scratch("vad-random-2.gguf");
    write_random_silero(path);
    std::shared_ptr<const VadModel> model = VadModel::load(path);
    std::remove(path.c_str());
    try {
        VadStream stream(model, 44100);
        CHECK(false);
    } catch (const Error & e) {
        CHECK(e.code() == ErrorCode::BadArgument);
    }
    VadStream stream(model, 16000);
    std::vector<float> x(600, 0.0f);
    x[300] = std::nanf("");
    try {
        stream.push(x.data(), x.size());
        CHECK(false);
    } catch (const Error & e) {
        CHECK(e.code() == ErrorCode::BadAudio);
    }
}

TEST(vad_model_refuses_non_finite_weights) {
    // A damaged file (NaN or infinity in a weight) would load and answer every chunk with NaN or with one
    // constant, which the CLI prints as null and the app reads as silence: refused at load, naming the tensor.
    for (const char * name : {"vad16k.decoder.decoder.2.bias", "vad8k.encoder.2.reparam_conv.weight", "vad16k.stft.forward_basis_buffer"}) {
        for (float bad : {std::nanf(""), INFINITY}) {
            const std::string path = scratch("vad-damaged.gguf");
            write_random_silero(path, name, bad);
            const Error e = load_error(path);
            std::remove(path.c_str());
            expect_message(e, std::string("tensor '") + name + "' holds NaN or infinite values");
        }
    }
}

TEST(vad_stream_refuses_samples_far_outside_audio_range_and_keeps_its_state) {
    // Finite samples so large that the STFT's squares overflow float (|x| ~ 1e19) could leave NaN in the LSTM
    // state: with Silero v6.2's weights every later probability was one constant (silero-vad.test.ts). Such a
    // call is refused before it touches the stream: the chunks after it are computed as if it had never come.
    const std::string path = scratch("vad-random-loud.gguf");
    write_random_silero(path);
    std::shared_ptr<const VadModel> model = VadModel::load(path);
    std::remove(path.c_str());
    const std::vector<float> x = test_signal(4096);
    for (int rate : {16000, 8000}) {
        VadStream clean(model, rate);
        clean.push(x.data(), 2000);
        const std::vector<float> expected = clean.push(x.data() + 2000, x.size() - 2000);

        VadStream stream(model, rate);
        stream.push(x.data(), 2000);  // leaves samples waiting: the refused call must not disturb them
        std::vector<float> loud(1500);
        for (size_t i = 0; i < loud.size(); ++i) loud[i] = 1e20f * x[i];
        bool refused = false;
        try {
            stream.push(loud.data(), loud.size());
        } catch (const Error & e) {
            refused = e.code() == ErrorCode::BadAudio;
        }
        CHECK(refused);
        const std::vector<float> got = stream.push(x.data() + 2000, x.size() - 2000);
        CHECK(got == expected);
        bool finite = true;
        for (float p : got) finite = finite && std::isfinite(p);
        CHECK(finite);
    }
}
