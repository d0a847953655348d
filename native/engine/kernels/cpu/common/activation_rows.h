// One frame's F32 activations written in a packed kernel's activation format (packed_weights.h
// ActivationFormat), for the ops that produce a matmul's input directly in its quantized form
// (the fused layer norm, the subsampling's depthwise convs): one switch instead of one per op.
#pragma once

#include <cstddef>
#include <cstdint>

#include "packed_weights.h"

namespace parakeet {

/** Bytes of one row of k values in `format` (Q8Blocks, I16Blocks or ChannelRows). */
size_t activation_row_bytes(ActivationFormat format, int64_t k);

/** x[0…k) as one row in `format` (Q8Blocks, I16Blocks or ChannelRows) at out. */
void quantize_activation_row(ActivationFormat format, const float * x, int64_t k, uint8_t * out);

}  // namespace parakeet
