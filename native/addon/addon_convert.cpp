#include "addon_convert.h"

#include <cstring>

#include "addon_errors.h"

namespace addon {
namespace {

/** One JS object per element, filled by `fill(object, element)`. */
template <class T, class Fill>
Napi::Array objects(Napi::Env env, const std::vector<T> & values, Fill fill) {
    Napi::Array out = Napi::Array::New(env, values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        Napi::Object o = Napi::Object::New(env);
        fill(o, values[i]);
        out.Set(uint32_t(i), o);
    }
    return out;
}

Napi::Array strings(Napi::Env env, const std::vector<std::string> & values) {
    Napi::Array out = Napi::Array::New(env, values.size());
    for (size_t i = 0; i < values.size(); ++i) out.Set(uint32_t(i), values[i]);
    return out;
}

Napi::Object counts(Napi::Env env, const std::map<std::string, int> & values) {
    Napi::Object out = Napi::Object::New(env);
    for (const auto & [key, value] : values) out.Set(key, value);
    return out;
}

Napi::Float32Array floats(Napi::Env env, const std::vector<float> & values) {
    Napi::Float32Array out = Napi::Float32Array::New(env, values.size());
    if (!values.empty()) std::memcpy(out.Data(), values.data(), values.size() * sizeof(float));
    return out;
}

}  // namespace

Napi::Object to_js(Napi::Env env, const parakeet::DeviceInfo & d) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", d.name);
    o.Set("description", d.description);
    o.Set("backend", d.backend);
    o.Set("type", parakeet::device_type_name(d.type));
    o.Set("memoryFree", double(d.memory_free));
    o.Set("memoryTotal", double(d.memory_total));
    o.Set("deviceId", d.device_id);
    o.Set("cpuFeatures", strings(env, d.cpu_features));
    o.Set("cpuThreads", d.cpu_threads);
    o.Set("softwareRenderer", d.software_renderer);
    if (d.gpu) {
        Napi::Object gpu = Napi::Object::New(env);
        gpu.Set("api", d.gpu->api);
        gpu.Set("apiVersion", d.gpu->api_version);
        gpu.Set("driverName", d.gpu->driver_name);
        gpu.Set("driverInfo", d.gpu->driver_info);
        gpu.Set("fp16", d.gpu->fp16);
        gpu.Set("integerDot", d.gpu->integer_dot);
        gpu.Set("cooperativeMatrix", d.gpu->cooperative_matrix);
        o.Set("gpu", gpu);
    }
    return o;
}

Napi::Object to_js(Napi::Env env, const parakeet::DeviceSelection & s) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("requested", s.requested);
    o.Set("source", s.source);
    o.Set("device", to_js(env, s.device));
    o.Set("fellBack", s.fell_back);
    if (s.no_room) o.Set("noRoom", true);
    o.Set("reason", s.reason);
    return o;
}

Napi::Object to_js(Napi::Env env, const parakeet::BuildInfo & b) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("ggmlVersion", b.ggml_version);
    o.Set("ggmlCommit", b.ggml_commit);
    o.Set("ggmlSource", b.ggml_source);
    o.Set("backendDl", b.backend_dl);
    o.Set("backends", strings(env, b.backends));
    o.Set("backendsNotLoaded", strings(env, b.backends_not_loaded));
    Napi::Object kernels = Napi::Object::New(env);
    kernels.Set("matmul", strings(env, b.matmul_kernels));
    kernels.Set("ops", strings(env, b.op_kernels));
    o.Set("kernelIds", kernels);
    return o;
}

Napi::Object to_js(Napi::Env env, const parakeet::ModelInfo & m) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("path", m.path);
    o.Set("schema", m.schema);
    Napi::Array components = Napi::Array::New(env, m.components.size());
    for (size_t i = 0; i < m.components.size(); ++i) {
        const parakeet::BundleComponent & c = m.components[i];
        Napi::Object js = Napi::Object::New(env);
        js.Set("name", c.name);
        js.Set("kind", c.kind);
        js.Set("license", c.license);
        js.Set("source", c.source);
        js.Set("attribution", c.attribution);
        js.Set("tensors", c.tensors);
        js.Set("bytes", double(c.bytes));
        js.Set("loaded", c.loaded);
        components.Set(uint32_t(i), js);
    }
    o.Set("components", components);
    o.Set("sentencePieceBytes", double(m.sentencepiece_bytes));
    o.Set("name", m.name);
    o.Set("arch", m.arch);
    o.Set("hasCtc", m.has_ctc);
    o.Set("hasTransducer", m.has_transducer);
    o.Set("isTdt", m.is_tdt);
    o.Set("defaultDecoder", parakeet::decoder_kind_name(m.default_decoder));
    o.Set("decoders", strings(env, m.decoders));
    o.Set("sampleRate", m.sample_rate);
    o.Set("nMels", m.n_mels);
    o.Set("nFft", m.n_fft);
    o.Set("winLength", m.win_length);
    o.Set("hopLength", m.hop_length);
    o.Set("dModel", m.d_model);
    o.Set("nLayers", m.n_layers);
    o.Set("nHeads", m.n_heads);
    o.Set("ffDim", m.ff_dim);
    o.Set("convKernel", m.conv_kernel);
    o.Set("subsamplingFactor", m.subsampling_factor);
    o.Set("subsamplingChannels", m.subsampling_channels);
    o.Set("xscaling", m.xscaling);
    o.Set("useBias", m.use_bias);
    o.Set("convNormType", m.conv_norm_type);
    o.Set("normalize", m.normalize);
    o.Set("attContextStyle", m.att_context_style);
    o.Set("attContextLeft", m.att_context_left);
    o.Set("attContextRight", m.att_context_right);
    o.Set("vocabSize", m.vocab_size);
    o.Set("blankId", m.blank_id);
    o.Set("predHidden", m.pred_hidden);
    o.Set("predLayers", m.pred_layers);
    o.Set("jointHidden", m.joint_hidden);
    o.Set("maxSymbols", m.max_symbols);
    Napi::Array durations = Napi::Array::New(env, m.durations.size());
    for (size_t i = 0; i < m.durations.size(); ++i) durations.Set(uint32_t(i), m.durations[i]);
    o.Set("durations", durations);
    o.Set("frameSec", m.frame_sec);
    o.Set("streaming", m.streaming);
    Napi::Array presets = Napi::Array::New(env, m.att_context_presets.size());
    for (size_t i = 0; i < m.att_context_presets.size(); ++i) {
        Napi::Array pair = Napi::Array::New(env, 2);
        pair.Set(uint32_t(0), m.att_context_presets[i].first);
        pair.Set(uint32_t(1), m.att_context_presets[i].second);
        presets.Set(uint32_t(i), pair);
    }
    o.Set("attContextPresets", presets);
    o.Set("hasPrompt", m.has_prompt);
    o.Set("languages", strings(env, m.languages));
    o.Set("defaultLanguage", m.default_language);
    o.Set("fileBytes", double(m.file_bytes));
    o.Set("weightBytes", double(m.weight_bytes));
    o.Set("tensorCount", m.tensor_count);
    o.Set("tensorTypes", counts(env, m.tensor_types));
    o.Set("weightTypes", counts(env, m.weight_types));
    o.Set("kernels", counts(env, m.kernels));
    o.Set("weightType", m.weight_type);
    o.Set("mmap", m.mmap);
    o.Set("device", to_js(env, m.device));
    o.Set("threads", m.n_threads);
    o.Set("scheduled", m.scheduled);
    o.Set("loadMs", m.load_ms);
    return o;
}

Napi::Array to_js(Napi::Env env, const std::vector<parakeet::Word> & words) {
    Napi::Array out = Napi::Array::New(env, words.size());
    for (size_t i = 0; i < words.size(); ++i) {
        Napi::Object w = Napi::Object::New(env);
        w.Set("text", words[i].text);
        w.Set("start", words[i].start);
        w.Set("end", words[i].end);
        w.Set("confidence", words[i].confidence);
        out.Set(uint32_t(i), w);
    }
    return out;
}

Napi::Array to_js(Napi::Env env, const std::vector<parakeet::Token> & tokens) {
    Napi::Array out = Napi::Array::New(env, tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
        const parakeet::Token & t = tokens[i];
        Napi::Object j = Napi::Object::New(env);
        j.Set("id", t.id);
        j.Set("piece", t.piece);
        j.Set("frame", t.frame);
        j.Set("duration", t.duration);
        j.Set("start", t.start);
        j.Set("end", t.end);
        j.Set("confidence", t.confidence);
        out.Set(uint32_t(i), j);
    }
    return out;
}

Napi::Object to_js(Napi::Env env, const parakeet::EncoderProfile & profile) {
    auto table = [&env](const std::map<std::string, parakeet::NodeTime> & m) {
        Napi::Object t = Napi::Object::New(env);
        for (const auto & e : m) {
            Napi::Object row = Napi::Object::New(env);
            row.Set("ms", e.second.ms);
            row.Set("count", e.second.count);
            row.Set("cpuMs", e.second.cpu_ms);
            Napi::Array threads = Napi::Array::New(env, e.second.thread_ms.size());
            for (size_t k = 0; k < e.second.thread_ms.size(); ++k) threads.Set(uint32_t(k), e.second.thread_ms[k]);
            row.Set("threadMs", threads);
            row.Set("busiestMs", e.second.busiest_ms);
            row.Set("measured", e.second.measured);
            row.Set("oneThread", e.second.one_thread);
            t.Set(e.first, row);
        }
        return t;
    };
    Napi::Object o = Napi::Object::New(env);
    o.Set("byOp", table(profile.by_op));
    o.Set("byPart", table(profile.by_part));
    o.Set("threads", profile.threads);
    return o;
}

Napi::Object to_js(Napi::Env env, const parakeet::TranscribeResult & r) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("text", r.text);
    o.Set("words", to_js(env, r.words));
    o.Set("tokens", to_js(env, r.tokens));
    o.Set("durationSec", r.duration_sec);
    o.Set("decoder", r.decoder);
    o.Set("device", r.device);
    o.Set("devicesRan", strings(env, r.devices_ran));
    Napi::Object timings = Napi::Object::New(env);
    timings.Set("melMs", r.timings.mel_ms);
    timings.Set("encoderMs", r.timings.encoder_ms);
    timings.Set("decoderMs", r.timings.decoder_ms);
    timings.Set("totalMs", r.timings.total_ms);
    o.Set("timings", timings);
    o.Set("windows", objects(env, r.windows, [](Napi::Object w, const parakeet::AudioWindow & window) {
              w.Set("start", window.start);
              w.Set("end", window.end);
          }));
    o.Set("threadsUsed", r.threads_used);
    o.Set("phrasesFired", strings(env, r.phrases_fired));
    o.Set("phrasesRejected", to_js(env, r.phrases_rejected));
    if (!r.mel.empty() || r.mel_frames > 0) {
        Napi::Object mel = Napi::Object::New(env);
        mel.Set("data", floats(env, r.mel));
        mel.Set("bins", r.mel_bins);
        mel.Set("frames", r.mel_frames);
        mel.Set("validFrames", r.mel_valid);
        o.Set("mel", mel);
    }
    if (!r.encoder.empty()) {
        Napi::Object enc = Napi::Object::New(env);
        enc.Set("data", floats(env, r.encoder));
        enc.Set("frames", r.enc_frames);
        enc.Set("validFrames", r.enc_valid);
        enc.Set("dim", r.enc_dim);
        o.Set("encoder", enc);
    }
    if (!r.logits.empty()) {
        Napi::Object logits = Napi::Object::New(env);
        logits.Set("data", floats(env, r.logits));
        logits.Set("classes", r.logit_classes);
        o.Set("logProbs", logits);
    }
    if (!r.profile.by_op.empty()) o.Set("profile", to_js(env, r.profile));
    return o;
}

std::string optional_string(Napi::Object options, const char * key, const std::string & fallback) {
    Napi::Value v = options.Get(key);
    if (v.IsUndefined() || v.IsNull()) return fallback;
    if (!v.IsString()) throw_bad_argument(options.Env(), std::string("option '") + key + "' must be a string");
    return v.As<Napi::String>().Utf8Value();
}

double optional_number(Napi::Object options, const char * key, double fallback) {
    Napi::Value v = options.Get(key);
    if (v.IsUndefined() || v.IsNull()) return fallback;
    if (!v.IsNumber()) throw_bad_argument(options.Env(), std::string("option '") + key + "' must be a number");
    return v.As<Napi::Number>().DoubleValue();
}

bool optional_bool(Napi::Object options, const char * key, bool fallback) {
    Napi::Value v = options.Get(key);
    if (v.IsUndefined() || v.IsNull()) return fallback;
    if (!v.IsBoolean()) throw_bad_argument(options.Env(), std::string("option '") + key + "' must be a boolean");
    return v.As<Napi::Boolean>().Value();
}

namespace {

/**
 * An optional array option: absent or null = empty; each item through `read`, which returns false when the
 * item is not what `item_shape` describes (BAD_ARGUMENT names the option, the index and that shape).
 */
template <class T, class Read>
std::vector<T> array_from_js(Napi::Env env, Napi::Value value, const std::string & name, const std::string & item_shape, Read read) {
    std::vector<T> out;
    if (value.IsUndefined() || value.IsNull()) return out;
    if (!value.IsArray()) throw_bad_argument(env, name + " must be an array, each item " + item_shape);
    Napi::Array items = value.As<Napi::Array>();
    for (uint32_t i = 0; i < items.Length(); ++i) {
        T item;
        if (!read(items.Get(i), item)) throw_bad_argument(env, name + "[" + std::to_string(i) + "] must be " + item_shape);
        out.push_back(std::move(item));
    }
    return out;
}

}  // namespace

std::vector<parakeet::VocabularyPhrase> vocabulary_from_js(Napi::Env env, Napi::Value value) {
    return array_from_js<parakeet::VocabularyPhrase>(
            env, value, "vocabulary", "{ phrase: string, weight?: number }", [](Napi::Value v, parakeet::VocabularyPhrase & p) {
                if (!v.IsObject() || !v.As<Napi::Object>().Get("phrase").IsString()) return false;
                Napi::Object o = v.As<Napi::Object>();
                p = {o.Get("phrase").As<Napi::String>().Utf8Value(), float(optional_number(o, "weight", 1.0))};  // the engine checks the weight
                return true;
            });
}

std::vector<std::string> strings_from_js(Napi::Env env, Napi::Value value, const char * name) {
    return array_from_js<std::string>(env, value, name, "a string", [](Napi::Value v, std::string & s) {
        if (!v.IsString()) return false;
        s = v.As<Napi::String>().Utf8Value();
        return true;
    });
}

std::vector<parakeet::AudioWindow> ranges_from_js(Napi::Env env, Napi::Value value, const char * name) {
    return array_from_js<
            parakeet::AudioWindow>(env, value, name, "{ start: number, end: number } (seconds)", [](Napi::Value v, parakeet::AudioWindow & r) {
        if (!v.IsObject() || !v.As<Napi::Object>().Get("start").IsNumber() || !v.As<Napi::Object>().Get("end").IsNumber()) return false;
        r = {v.As<Napi::Object>().Get("start").As<Napi::Number>().DoubleValue(), v.As<Napi::Object>().Get("end").As<Napi::Number>().DoubleValue()};
        return true;
    });
}

std::vector<parakeet::SampleRange> sample_ranges_from_js(Napi::Env env, Napi::Value value, const char * name) {
    return array_from_js<parakeet::SampleRange>(
            env, value, name, "{ begin: number, end: number } (whole sample indices)", [](Napi::Value v, parakeet::SampleRange & r) {
                if (!v.IsObject()) return false;
                const Napi::Value begin = v.As<Napi::Object>().Get("begin");
                const Napi::Value end = v.As<Napi::Object>().Get("end");
                if (!begin.IsNumber() || !end.IsNumber()) return false;
                const double b = begin.As<Napi::Number>().DoubleValue();
                const double e = end.As<Napi::Number>().DoubleValue();
                // Whole numbers below 2^53 (a 24-hour clip at any rate is far below).
                const double limit = 9007199254740992.0;
                if (!(b >= 0 && b < limit && e >= 0 && e < limit) || b != double(size_t(b)) || e != double(size_t(e))) return false;
                r = {size_t(b), size_t(e)};
                return true;
            });
}

Napi::Array to_js(Napi::Env env, const std::vector<parakeet::RejectedPhrase> & rejected) {
    return objects(env, rejected, [](Napi::Object p, const parakeet::RejectedPhrase & r) {
        p.Set("phrase", r.phrase);
        p.Set("reason", r.reason);
    });
}

Napi::Array to_js(Napi::Env env, const std::vector<std::string> & values) { return strings(env, values); }

}  // namespace addon
