// Files that are not usable models are refused by Model::load with
// Error(ModelInvalid) and a message that names what is wrong, never a crash:
// missing, empty, garbage, a GGUF cut short in its header or in its tensor
// data, a GGUF of another architecture, a Parakeet GGUF without its keys.
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "test_files.h"
#include "parakeet/parakeet.h"

using namespace parakeet;
using namespace parakeet_tests;

namespace {

/** Model::load's error for `path`: its code and message (Internal and "loaded" when it did not throw). */
Error load_error(const std::string & path) {
    LoadParams params = default_load_params();
    params.device = "cpu";
    params.n_threads = 1;
    try {
        Model::load(path, params);
    } catch (const Error & e) {
        return e;
    }
    return Error(ErrorCode::Internal, "loaded");
}

void expect_refused(const std::string & path, const std::string & says) {
    const Error e = load_error(path);
    CHECK(e.code() == ErrorCode::ModelInvalid);
    const std::string message = e.what();
    if (message.find(says) == std::string::npos) {
        parakeet_tests::fail(__FILE__, __LINE__, "message '" + message + "' should say '" + says + "'");
    }
    std::remove(path.c_str());
}

}  // namespace

TEST(gguf_missing_file) {
    const Error e = load_error(scratch("does-not-exist.gguf"));
    CHECK(e.code() == ErrorCode::ModelInvalid);
    CHECK(std::string(e.what()).find("does-not-exist.gguf") != std::string::npos);
}

TEST(gguf_empty_file) {
    const std::string path = scratch("empty.gguf");
    write_bytes(path, {});
    expect_refused(path, "empty.gguf");
}

TEST(gguf_garbage_bytes) {
    const std::string path = scratch("garbage.gguf");
    std::vector<uint8_t> bytes(4096);
    uint32_t s = 12345;
    for (uint8_t & b : bytes) b = uint8_t((s = s * 1664525u + 1013904223u) >> 24);
    write_bytes(path, bytes);
    expect_refused(path, "garbage.gguf");
}

TEST(gguf_header_cut_short) {
    const std::string whole = scratch("whole-for-header.gguf");
    write_gguf(whole, "parakeet", "tdt");
    std::vector<uint8_t> bytes = read_bytes(whole);
    std::remove(whole.c_str());
    bytes.resize(20);  // magic, version and part of the counts
    const std::string path = scratch("header-cut.gguf");
    write_bytes(path, bytes);
    expect_refused(path, "header-cut.gguf");
}

TEST(gguf_tensor_data_cut_short) {
    const std::string path = scratch("data-cut.gguf");
    write_gguf(path, "parakeet", "tdt");
    std::vector<uint8_t> bytes = read_bytes(path);
    bytes.resize(bytes.size() - 256);  // the tensor's data ends past the end of the file
    write_bytes(path, bytes);
    expect_refused(path, "data-cut.gguf");
}

TEST(gguf_of_another_architecture) {
    const std::string path = scratch("vad.gguf");
    write_gguf(path, "silero_vad", "");
    expect_refused(path, "voice-activity");
    const std::string llama = scratch("llama.gguf");
    write_gguf(llama, "llama", "");
    expect_refused(llama, "large language model");
}

TEST(gguf_parakeet_without_its_keys) {
    const std::string path = scratch("no-arch.gguf");
    write_gguf(path, "parakeet", "");
    expect_refused(path, "parakeet.arch");
    const std::string unknown = scratch("unknown-arch.gguf");
    write_gguf(unknown, "parakeet", "diarization");
    expect_refused(unknown, "diarization");
    const std::string no_vocab = scratch("no-vocab.gguf");
    write_gguf(no_vocab, "parakeet", "tdt");
    expect_refused(no_vocab, "parakeet.encoder.d_model");  // the first missing hyper-parameter is named
}
