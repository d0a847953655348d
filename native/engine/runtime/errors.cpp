// Error code names shared with JavaScript (`err.code`).
#include "parakeet/parakeet.h"

namespace parakeet {

const char * error_code_name(ErrorCode code) {
    switch (code) {
        case ErrorCode::ModelInvalid: return "MODEL_INVALID";
        case ErrorCode::DeviceUnavailable: return "DEVICE_UNAVAILABLE";
        case ErrorCode::OutOfMemory: return "OUT_OF_MEMORY";
        case ErrorCode::Aborted: return "ABORTED";
        case ErrorCode::Busy: return "BUSY";
        case ErrorCode::BadAudio: return "BAD_AUDIO";
        case ErrorCode::BadArgument: return "BAD_ARGUMENT";
        case ErrorCode::Internal: return "INTERNAL";
    }
    return "INTERNAL";
}

const char * decoder_kind_name(DecoderKind kind) {
    switch (kind) {
        case DecoderKind::Auto: return "auto";
        case DecoderKind::Ctc: return "ctc";
        case DecoderKind::Rnnt: return "rnnt";
        case DecoderKind::Tdt: return "tdt";
    }
    return "auto";
}

const char * device_type_name(DeviceType type) {
    switch (type) {
        case DeviceType::Cpu: return "cpu";
        case DeviceType::Gpu: return "gpu";
        case DeviceType::IGpu: return "igpu";
        case DeviceType::Accel: return "accel";
    }
    return "cpu";
}

}  // namespace parakeet
