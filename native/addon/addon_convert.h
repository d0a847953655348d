// Engine structs <-> JavaScript values.
#pragma once

#include <napi.h>

#include <vector>

#include "parakeet/parakeet.h"

namespace addon {

Napi::Object to_js(Napi::Env env, const parakeet::DeviceInfo & device);
Napi::Object to_js(Napi::Env env, const parakeet::DeviceSelection & selection);
Napi::Object to_js(Napi::Env env, const parakeet::ModelInfo & info);
Napi::Object to_js(Napi::Env env, const parakeet::TranscribeResult & result);
/** A node-by-node profile: { byOp, byPart }, each { [label]: { ms, count } }. */
Napi::Object to_js(Napi::Env env, const parakeet::EncoderProfile & profile);
Napi::Array to_js(Napi::Env env, const std::vector<parakeet::Word> & words);
Napi::Array to_js(Napi::Env env, const std::vector<parakeet::Token> & tokens);
Napi::Object to_js(Napi::Env env, const parakeet::BuildInfo & info);
Napi::Array to_js(Napi::Env env, const std::vector<parakeet::RejectedPhrase> & rejected);
Napi::Array to_js(Napi::Env env, const std::vector<std::string> & values);

/** Reads an optional string/number/bool property, validating its type (BAD_ARGUMENT on mismatch). */
std::string optional_string(Napi::Object options, const char * key, const std::string & fallback);
double optional_number(Napi::Object options, const char * key, double fallback);
bool optional_bool(Napi::Object options, const char * key, bool fallback);

/** options.vocabulary: [{ phrase, weight? }] (the engine checks the count and the weights); absent = none. */
std::vector<parakeet::VocabularyPhrase> vocabulary_from_js(Napi::Env env, Napi::Value value);
/** An optional array of { start, end } seconds (options.nonSpeech); `name` names it in the error. */
std::vector<parakeet::AudioWindow> ranges_from_js(Napi::Env env, Napi::Value value, const char * name);
/** An optional array of { begin, end } sample indices (options.windows: whole numbers ≥ 0); `name` names it in the error. */
std::vector<parakeet::SampleRange> sample_ranges_from_js(Napi::Env env, Napi::Value value, const char * name);
/** An optional array of strings (options.neverBoost); `name` names it in the error. */
std::vector<std::string> strings_from_js(Napi::Env env, Napi::Value value, const char * name);

}  // namespace addon
