#include "activation_rows.h"

#include "i16_vnni.h"
#include "int8_channel_vnni.h"
#include "q8_0_vnni.h"

namespace parakeet {

size_t activation_row_bytes(ActivationFormat format, int64_t k) {
    return format == ActivationFormat::Q8Blocks    ? q8_activation_row_bytes(k)
           : format == ActivationFormat::I16Blocks ? i16_activation_row_bytes(k)
                                                   : channel_activation_row_bytes(k);
}

void quantize_activation_row(ActivationFormat format, const float * x, int64_t k, uint8_t * out) {
    if (format == ActivationFormat::Q8Blocks)
        quantize_q8_activation_row(x, k, out);
    else if (format == ActivationFormat::I16Blocks)
        quantize_i16_activation_row(x, k, out);
    else
        quantize_channel_activation_row(x, k, out);
}

}  // namespace parakeet
