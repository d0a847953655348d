#include "registry.h"

#include <cstring>
#include <string>

#include "amx_bf16.h"
#include "f32_avx512.h"
#include "i16_vnni.h"
#include "int8_channel_vnni.h"
#include "int8_kernel.h"
#include "parakeet/parakeet.h"
#include "q4_k_vnni.h"
#include "q8_0_rel_pos_vnni.h"
#include "q8_0_vnni.h"
#include "rel_pos_projection.h"

namespace parakeet {
namespace {

// Shapes. Every packed kernel takes rows in panels of 32; blocks never straddle a row.
bool panels(int64_t rows, int64_t) { return rows % 32 == 0; }
bool panels_and_blocks(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 32 == 0 && cols > 0; }
// linear_pos as column halves (rel_pos_projection.h): the sin and cos columns alternate, so each half
// has cols / 2 columns; the F32, F16 and int8 halves take cols % 8 == 0.
bool panel_halves(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 8 == 0; }
bool channel_fits(int64_t rows, int64_t cols) { return PackedI8ChannelMatrix::fits(rows, cols); }
bool channel_halves(int64_t rows, int64_t cols) { return cols % 8 == 0 && PackedI8ChannelMatrix::fits(rows, cols / 2); }
bool channel_amx(int64_t rows, int64_t cols) { return PackedI8ChannelMatrix::fits(rows, cols) && channel_amx_fits(rows, cols); }
bool channel_amx_halves(int64_t rows, int64_t cols) { return channel_halves(rows, cols) && channel_amx_fits(rows, cols / 2); }
bool i16_fits(int64_t rows, int64_t cols) { return PackedI16Matrix::fits(rows, cols); }
bool i16_halves(int64_t rows, int64_t cols) { return cols % 8 == 0 && PackedI16Matrix::fits(rows, cols / 2); }
bool bf16_tile_halves(int64_t rows, int64_t cols) { return rows % 32 == 0 && cols % 64 == 0; }
bool q4_k_fits(int64_t rows, int64_t cols) { return PackedQ4KMatrix::fits(rows, cols); }

const void * blocks_of(const WeightData & w, ggml_type type, const char * kernel) {
    if (w.type != type) {
        throw Error(ErrorCode::Internal, std::string(kernel) + " packs " + ggml_type_name(type) + " weights, not " + ggml_type_name(w.type));
    }
    return w.data;
}

template <typename Matrix>
std::unique_ptr<PackedMatmul> from_values(const WeightData & w, uint8_t * storage) {
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    return std::make_unique<Matrix>(v.data(), w.rows, w.cols, storage);
}
// One packed layout per format, several instruction sets (int8_kernel.h, f32_avx512.h): each row
// builds its matrix for its own.
template <F32Kernel K>
std::unique_ptr<PackedMatmul> make_f32(const WeightData & w, uint8_t * storage) {
    if (w.type == GGML_TYPE_F32) return std::make_unique<PackedF32Matrix>(static_cast<const float *>(w.data), w.rows, w.cols, storage, K);
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    return std::make_unique<PackedF32Matrix>(v.data(), w.rows, w.cols, storage, K);
}
template <F32Kernel K>
std::unique_ptr<PackedMatmul> make_f16(const WeightData & w, uint8_t * storage) {
    if (w.type == GGML_TYPE_F16) return std::make_unique<PackedF16Matrix>(static_cast<const ggml_fp16_t *>(w.data), w.rows, w.cols, storage, K);
    // Column halves of an F16 weight come as F32: back to F16 without loss (every value came from an F16).
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    std::vector<ggml_fp16_t> h(v.size());
    ggml_fp32_to_fp16_row(v.data(), h.data(), int64_t(v.size()));
    return std::make_unique<PackedF16Matrix>(h.data(), w.rows, w.cols, storage, K);
}
template <Int8Kernel K>
std::unique_ptr<PackedMatmul> make_q8_0(const WeightData & w, uint8_t * storage) {
    return std::make_unique<PackedQ8Matrix>(blocks_of(w, GGML_TYPE_Q8_0, q8_kernel_layout(K)), w.rows, w.cols, storage, K);
}
template <Int8Kernel K>
std::unique_ptr<PackedMatmul> make_channel(const WeightData & w, uint8_t * storage) {
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    return std::make_unique<PackedI8ChannelMatrix>(v.data(), w.rows, w.cols, storage, K);
}
template <Int8Kernel K>
std::unique_ptr<PackedMatmul> make_i16(const WeightData & w, uint8_t * storage) {
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    return std::make_unique<PackedI16Matrix>(v.data(), w.rows, w.cols, storage, K);
}
// What a row needs beyond its class (KernelRow::needs).
bool vex_vnni(const CpuFeatures & cpu) { return cpu.avx_vnni_vex(); }
bool evex_vnni(const CpuFeatures & cpu) { return cpu.avx_vnni_evex(); }
// The 256-bit 14-bit attention replaces attention_f32_avx2 only: where the F32 op is the AVX-512 one
// (an AVX-512 CPU without VNNI, or that class forced) the products stay F32, as before these rows.
bool below_avx512(const CpuFeatures & cpu) { return !cpu.has(CpuClass::Avx512); }
bool vex_vnni_below_avx512(const CpuFeatures & cpu) { return vex_vnni(cpu) && below_avx512(cpu); }
bool evex_vnni_below_avx512(const CpuFeatures & cpu) { return evex_vnni(cpu) && below_avx512(cpu); }
std::unique_ptr<PackedMatmul> make_q8_0_tiles(const WeightData & w, uint8_t * storage) {
    return std::make_unique<PackedQ8TileMatrix>(blocks_of(w, GGML_TYPE_Q8_0, "q8_0_amx_bf16"), w.rows, w.cols, storage);
}
template <Int8Kernel K>
std::unique_ptr<PackedMatmul> make_q4_k(const WeightData & w, uint8_t * storage) {
    return std::make_unique<PackedQ4KMatrix>(blocks_of(w, GGML_TYPE_Q4_K, q4_k_kernel_layout(K)), w.rows, w.cols, storage, K);
}
std::unique_ptr<PackedMatmul> make_channel_amx(const WeightData & w, uint8_t * storage) {
    const std::vector<float> v = weight_values(w.data, w.type, w.rows * w.cols);
    auto m = std::make_unique<PackedI8ChannelMatrix>(v.data(), w.rows, w.cols, storage, Int8Kernel::Vnni512);
    m->run_on_amx();
    return m;
}

using C = CpuClass;
using N = KernelNumerics;
using H = KernelHalves;
constexpr unsigned kFloats = kStoresF32 | kStoresF16;
constexpr unsigned kStored = numerics_bit(N::Stored), kInt16 = numerics_bit(N::Int16), kChannelInt8 = numerics_bit(N::ChannelInt8);

}  // namespace

// In order of preference: the first row the CPU class allows and that takes and fits a weight runs it.
// The AVX2 / AVX-VNNI-256 rows go after the AVX-512 row of the same numerics. (A function-local
// table: the tests register one case per row while statics initialize.) The last number is the
// generated test's bound, about twice the worst relative L2 measured over frames × epilogues (Zen 4,
// 2026-12-06): F32/F16 3.7e-7, i16 1.3e-4, Q8_0 6.1e-3, Q4_K 5.9e-3, Q8_0 halves 2.5e-3, per-channel
// int8 1.1e-2; the AMX rows (BF16 activations) were not measured here.
//
// What 'auto' picks on the 256-bit classes (model_weights.cpp): an all-F32 file's matmuls on the
// 14-bit rows (i16_avx2, i16_avx_vnni*), not f32_avx2; a block-quantized file as on AVX512-VNNI (its
// pointwise convs in Q8_0, its other F32 weights in 14-bit, other block types requantized within the
// budget, the attention's products on the 256-bit attention_i16 rows); the avx512 class (no VNNI)
// keeps its exact f32_avx512 (40–52 G/s here, i16_avx2's 37–39 no gain) and the file's types. The
// products equal the 512-bit i16_vnni's bit for bit, so auto's accuracy rule for it holds. Measured
// in process CPU time, one thread, under the forced class on a shared Zen 4 (2026-12-07; `npm run
// bench:kernels -- --cpu-time --i16`, test/bench/weight-type-cpu-time.ts): i16_avx2 37–39 G
// multiply-adds/s against f32_avx2's 20–21.5 on the encoders' shapes, i16_avx_vnni_evex 79–84;
// the 110M F32 model on 10 s: 718 → 428 ms under avx2, 729 → 248 ms under avx_vnni. A quantized file
// (110M, 10 s, the same way; bench-results/quantized-below-avx512-cpu-time-*.txt): Q8_0 under auto
// 364 → 298 ms (avx2) and 240 → 146 (avx_vnni); Q4_K under auto (requantized) 340 → 293 and 336 → 145;
// weightType q4_k (ggml's Q4_K → the q4_k rows) 555 → 264 and 556 → 167.
const std::vector<KernelRow> & kernel_table() {
    static const std::vector<KernelRow> rows = {
            {KernelId::F32AmxBf16, "f32_amx_bf16", C::Amx, kStored | kInt16, kStoresQ8_0 | kFloats, false, true, H::HalvesOnly, panels_and_blocks,
             bf16_tile_halves, PackedBf16TileMatrix::storage_bytes, from_values<PackedBf16TileMatrix>, "Q8_0, F32, F16 (as BF16)",
             "auto, block-quantized file, AMX", "kernels/cpu/matmul/f32_amx_bf16.cpp", 1.5e-2},
            {KernelId::Int8ChannelAmx, "int8_channel_amx", C::Amx, kChannelInt8, kStoresAny, false, false, H::WholeOrHalves, channel_amx,
             channel_amx_halves, PackedI8ChannelMatrix::storage_bytes, make_channel_amx, "any (per-channel int8)", "weightType int8, AMX",
             "kernels/cpu/matmul/int8_channel_amx.cpp", 2e-2},
            {KernelId::Int8ChannelVnni, "int8_channel_vnni", C::Avx512Vnni, kChannelInt8, kStoresAny, false, false, H::WholeOrHalves, channel_fits,
             channel_halves, PackedI8ChannelMatrix::storage_bytes, make_channel<Int8Kernel::Vnni512>, "any (per-channel int8)", "weightType int8",
             "kernels/cpu/matmul/int8_channel_vnni.cpp", 2e-2},
            {KernelId::Int8ChannelAvxVnni, "int8_channel_avx_vnni", C::AvxVnni, kChannelInt8, kStoresAny, false, false, H::WholeOrHalves,
             channel_fits, channel_halves, PackedI8ChannelMatrix::storage_bytes, make_channel<Int8Kernel::AvxVnniVex>, "any (per-channel int8)",
             "weightType int8, AVX-VNNI (256-bit VPDPBUSD, VEX)", "kernels/cpu/matmul/int8_channel_avx_vnni.cpp", 2e-2, vex_vnni},
            {KernelId::Int8ChannelAvxVnniEvex, "int8_channel_avx_vnni_evex", C::AvxVnni, kChannelInt8, kStoresAny, false, false, H::WholeOrHalves,
             channel_fits, channel_halves, PackedI8ChannelMatrix::storage_bytes, make_channel<Int8Kernel::AvxVnniEvex>, "any (per-channel int8)",
             "weightType int8, class avx_vnni on an AVX512-VNNI CPU (EVEX)", "kernels/cpu/matmul/int8_channel_avx_vnni.cpp", 2e-2, evex_vnni},
            {KernelId::Int8ChannelAvx2, "int8_channel_avx2", C::Avx2, kChannelInt8, kStoresAny, false, false, H::WholeOrHalves, channel_fits,
             channel_halves, PackedI8ChannelMatrix::storage_bytes, make_channel<Int8Kernel::Avx2>, "any (per-channel int8)", "weightType int8, AVX2",
             "kernels/cpu/matmul/int8_channel_avx2.cpp", 2e-2},
            {KernelId::I16Vnni, "i16_vnni", C::Avx512Vnni, kInt16, kFloats, false, false, H::WholeOrHalves, i16_fits, i16_halves,
             PackedI16Matrix::storage_bytes, make_i16<Int8Kernel::Vnni512>, "F32, F16 (14-bit blocks)",
             "i16; auto: F32 file, or the F32 weights of a block-quantized file", "kernels/cpu/matmul/i16_vnni.cpp", 3e-4},
            {KernelId::I16AvxVnni, "i16_avx_vnni", C::AvxVnni, kInt16, kFloats, false, false, H::WholeOrHalves, i16_fits, i16_halves,
             PackedI16Matrix::storage_bytes, make_i16<Int8Kernel::AvxVnniVex>, "F32, F16 (14-bit blocks)",
             "i16; auto: all-F32 file, AVX-VNNI (256-bit VPDPWSSD, VEX)", "kernels/cpu/matmul/i16_avx_vnni.cpp", 3e-4, vex_vnni},
            {KernelId::I16AvxVnniEvex, "i16_avx_vnni_evex", C::AvxVnni, kInt16, kFloats, false, false, H::WholeOrHalves, i16_fits, i16_halves,
             PackedI16Matrix::storage_bytes, make_i16<Int8Kernel::AvxVnniEvex>, "F32, F16 (14-bit blocks)",
             "i16; auto: all-F32 file, class avx_vnni on an AVX512-VNNI CPU (EVEX)", "kernels/cpu/matmul/i16_avx_vnni.cpp", 3e-4, evex_vnni},
            {KernelId::I16Avx2, "i16_avx2", C::Avx2, kInt16, kFloats, false, false, H::WholeOrHalves, i16_fits, i16_halves,
             PackedI16Matrix::storage_bytes, make_i16<Int8Kernel::Avx2>, "F32, F16 (14-bit blocks)", "i16; auto: all-F32 file, AVX2 (VPMADDWD)",
             "kernels/cpu/matmul/i16_avx2.cpp", 3e-4},
            {KernelId::Q8_0RelPosVnni, "q8_0_rel_pos_vnni", C::Avx512Vnni, kStored, kStoresQ8_0, false, false, H::BlockHalves, panels_and_blocks,
             panels_and_blocks, Q8RelPosProjection::storage_bytes, nullptr, "Q8_0", "linear_pos of a Q8_0 weight under the fused attention",
             "kernels/cpu/matmul/q8_0_rel_pos_vnni.cpp", 1e-2},
            {KernelId::Q8_0AmxBf16, "q8_0_amx_bf16", C::Amx, kStored, kStoresQ8_0, false, true, H::Whole, panels_and_blocks, nullptr,
             PackedQ8TileMatrix::storage_bytes, make_q8_0_tiles, "Q8_0", "auto, block-quantized file, AMX", "kernels/cpu/matmul/q8_0_amx_bf16.cpp",
             1.5e-2},
            {KernelId::Q8_0Vnni, "q8_0_vnni", C::Avx512Vnni, kStored, kStoresQ8_0, false, false, H::Whole, panels_and_blocks, nullptr,
             PackedQ8Matrix::storage_bytes, make_q8_0<Int8Kernel::Vnni512>, "Q8_0", "Q8_0 weights (stored, q8_0, or requantized under auto)",
             "kernels/cpu/matmul/q8_0_vnni.cpp", 1e-2},
            {KernelId::Q8_0AvxVnni, "q8_0_avx_vnni", C::AvxVnni, kStored, kStoresQ8_0, false, false, H::Whole, panels_and_blocks, nullptr,
             PackedQ8Matrix::storage_bytes, make_q8_0<Int8Kernel::AvxVnniVex>, "Q8_0",
             "Q8_0 weights (stored or q8_0), AVX-VNNI (256-bit VPDPBUSD, VEX)", "kernels/cpu/matmul/q8_0_avx_vnni.cpp", 1e-2, vex_vnni},
            {KernelId::Q8_0AvxVnniEvex, "q8_0_avx_vnni_evex", C::AvxVnni, kStored, kStoresQ8_0, false, false, H::Whole, panels_and_blocks, nullptr,
             PackedQ8Matrix::storage_bytes, make_q8_0<Int8Kernel::AvxVnniEvex>, "Q8_0",
             "Q8_0 weights (stored or q8_0), class avx_vnni on an AVX512-VNNI CPU (EVEX)", "kernels/cpu/matmul/q8_0_avx_vnni.cpp", 1e-2, evex_vnni},
            {KernelId::Q8_0Avx2, "q8_0_avx2", C::Avx2, kStored, kStoresQ8_0, false, false, H::Whole, panels_and_blocks, nullptr,
             PackedQ8Matrix::storage_bytes, make_q8_0<Int8Kernel::Avx2>, "Q8_0", "Q8_0 weights (stored or q8_0), AVX2",
             "kernels/cpu/matmul/q8_0_avx2.cpp", 1e-2},
            {KernelId::Q4_KVnni, "q4_k_vnni", C::Avx512Vnni, kStored, kStoresQ4_K, false, false, H::Whole, q4_k_fits, nullptr,
             PackedQ4KMatrix::storage_bytes, make_q4_k<Int8Kernel::Vnni512>, "Q4_K",
             "Q4_K weights kept as stored (auto over the requantize budget, q4_k)", "kernels/cpu/matmul/q4_k_vnni.cpp", 1e-2},
            {KernelId::Q4_KAvxVnni, "q4_k_avx_vnni", C::AvxVnni, kStored, kStoresQ4_K, false, false, H::Whole, q4_k_fits, nullptr,
             PackedQ4KMatrix::storage_bytes, make_q4_k<Int8Kernel::AvxVnniVex>, "Q4_K",
             "Q4_K weights kept as stored, AVX-VNNI (256-bit VPDPBUSD, VEX)", "kernels/cpu/matmul/q4_k_avx_vnni.cpp", 1e-2, vex_vnni},
            {KernelId::Q4_KAvxVnniEvex, "q4_k_avx_vnni_evex", C::AvxVnni, kStored, kStoresQ4_K, false, false, H::Whole, q4_k_fits, nullptr,
             PackedQ4KMatrix::storage_bytes, make_q4_k<Int8Kernel::AvxVnniEvex>, "Q4_K",
             "Q4_K weights kept as stored, class avx_vnni on an AVX512-VNNI CPU (EVEX)", "kernels/cpu/matmul/q4_k_avx_vnni.cpp", 1e-2, evex_vnni},
            {KernelId::Q4_KAvx2, "q4_k_avx2", C::Avx2, kStored, kStoresQ4_K, false, false, H::Whole, q4_k_fits, nullptr,
             PackedQ4KMatrix::storage_bytes, make_q4_k<Int8Kernel::Avx2>, "Q4_K", "Q4_K weights kept as stored, AVX2 (VPMADDUBSW)",
             "kernels/cpu/matmul/q4_k_avx2.cpp", 1e-2},
            {KernelId::F16Avx512, "f16_avx512", C::Avx512, kStored, kStoresF16, true, false, H::WholeOrHalves, panels, panel_halves,
             PackedF16Matrix::storage_bytes, make_f16<F32Kernel::Avx512>, "F16", "F16 weights (stored or f16)", "kernels/cpu/matmul/f16_avx512.cpp",
             2e-6},
            {KernelId::F16Avx2, "f16_avx2", C::Avx2, kStored, kStoresF16, true, false, H::WholeOrHalves, panels, panel_halves,
             PackedF16Matrix::storage_bytes, make_f16<F32Kernel::Avx2>, "F16", "F16 weights (stored or f16), AVX2", "kernels/cpu/matmul/f16_avx2.cpp",
             2e-6},
            {KernelId::F32Avx512, "f32_avx512", C::Avx512, kStored, kStoresF32, true, false, H::WholeOrHalves, panels, panel_halves,
             PackedF32Matrix::storage_bytes, make_f32<F32Kernel::Avx512>, "F32", "F32 weights (f32; Exact matmuls such as joint.enc)",
             "kernels/cpu/matmul/f32_avx512.cpp", 2e-6},
            {KernelId::F32Avx2, "f32_avx2", C::Avx2, kStored, kStoresF32, true, false, H::WholeOrHalves, panels, panel_halves,
             PackedF32Matrix::storage_bytes, make_f32<F32Kernel::Avx2>, "F32", "F32 weights (f32, auto's F32 weights; Exact matmuls), AVX2",
             "kernels/cpu/matmul/f32_avx2.cpp", 2e-6},
    };
    return rows;
}

namespace {

unsigned storage_bit(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32: return kStoresF32;
        case GGML_TYPE_F16: return kStoresF16;
        case GGML_TYPE_Q8_0: return kStoresQ8_0;
        case GGML_TYPE_Q4_K: return kStoresQ4_K;
        default: return 0;
    }
}

/** The row's numerics, CPU class and storage admit the request (shapes aside). */
bool admits(const KernelRow & row, const KernelRequest & r, const CpuFeatures & cpu) {
    if (!row_runs_on(row, cpu)) return false;
    if (row.bf16_tiles && !r.bf16_tiles) return false;
    const bool numerics = r.numerics == KernelNumerics::Exact ? row.exact : (row.numerics & numerics_bit(r.numerics)) != 0;
    const bool readable = ggml_get_type_traits(r.placed)->to_float != nullptr || r.placed == GGML_TYPE_F32;
    return numerics && ((row.takes & storage_bit(r.placed)) != 0 || ((row.takes & kStoresAny) != 0 && readable));
}

}  // namespace

const KernelRow & kernel_row(KernelId id) {
    for (const KernelRow & row : kernel_table()) {
        if (row.id == id) return row;
    }
    throw Error(ErrorCode::Internal, "no kernel row for this id");
}

KernelChoice choose_kernel(const KernelRequest & r, const CpuFeatures & cpu) {
    if (r.column_halves) {
        for (const KernelRow & row : kernel_table()) {
            if (row.halves != KernelHalves::Whole && row.halves_fit != nullptr && admits(row, r, cpu) && row.halves_fit(r.rows, r.cols)) {
                return {&row, true};
            }
        }
    }
    for (const KernelRow & row : kernel_table()) {
        if ((row.halves == KernelHalves::Whole || row.halves == KernelHalves::WholeOrHalves) && admits(row, r, cpu) && row.fits(r.rows, r.cols)) {
            return {&row, false};
        }
    }
    return {};
}

bool kernel_runs(KernelNumerics numerics, ggml_type placed, const CpuFeatures & cpu) {
    KernelRequest r;
    r.placed = placed;
    r.numerics = numerics;
    r.bf16_tiles = true;
    for (const KernelRow & row : kernel_table()) {
        if (row.make != nullptr && admits(row, r, cpu)) return true;
    }
    return false;
}

size_t PackedProduct::bytes() const {
    return halves != nullptr ? halves->bytes() : q8_halves != nullptr ? q8_halves->bytes() : matrix != nullptr ? matrix->bytes() : 0;
}

size_t packed_bytes(const KernelChoice & choice, int64_t rows, int64_t cols) {
    const bool column_halves = choice.halves && choice.row->halves != KernelHalves::BlockHalves;
    const size_t b = choice.row->storage_bytes(rows, column_halves ? cols / 2 : cols);
    return (b + 63) / 64 * 64;
}

PackedProduct pack_weight(const KernelChoice & choice, const WeightData & w, uint8_t * storage, uint8_t * second_half) {
    PackedProduct made;
    const KernelRow & row = *choice.row;
    if (row.halves == KernelHalves::BlockHalves) {
        made.q8_halves = std::make_shared<const Q8RelPosProjection>(blocks_of(w, GGML_TYPE_Q8_0, row.name), w.rows, w.cols, storage);
    } else if (choice.halves) {
        const std::vector<float> values = weight_values(w.data, w.type, w.rows * w.cols);
        std::unique_ptr<PackedMatmul> columns[2];
        for (int odd = 0; odd < 2; ++odd) {
            const std::vector<float> half = every_other_column(values.data(), w.rows, w.cols, odd != 0);
            columns[odd] = row.make(WeightData{half.data(), GGML_TYPE_F32, w.rows, w.cols / 2}, odd != 0 ? second_half : storage);
        }
        made.halves = std::make_unique<RelPosProjection>(std::move(columns[0]), std::move(columns[1]));
    } else {
        made.matrix = row.make(w, storage);
    }
    return made;
}

const std::vector<OpKernelRow> & op_kernel_table() {
    static const std::vector<OpKernelRow> rows = {
            {OpKernelId::AttentionF32Avx512, FusedOp::Attention, "attention_f32_avx512", CpuClass::Avx512,
             "the fused relative-position attention, F32 products", "kernels/cpu/ops/attention_f32_avx512.cpp", "f32_attention_matches_float64"},
            {OpKernelId::AttentionF32Avx2, FusedOp::Attention, "attention_f32_avx2", CpuClass::Avx2,
             "the same, F32 products, where there is no AVX-512", "kernels/cpu/ops/attention_f32_avx2.cpp", "f32_attention_avx2_matches_float64"},
            {OpKernelId::AttentionI16Vnni, FusedOp::AttentionInt16, "attention_i16_vnni", CpuClass::Avx512Vnni,
             "its products in 14-bit integers when the matmuls run quantized", "kernels/cpu/ops/attention_i16_vnni.cpp",
             "i16_attention_stays_near_float64"},
            {OpKernelId::AttentionI16AvxVnni, FusedOp::AttentionInt16, "attention_i16_avx_vnni", CpuClass::AvxVnni,
             "the same below AVX-512, AVX-VNNI (256-bit VPDPWSSD, VEX; equal outputs)", "kernels/cpu/ops/attention_i16_avx_vnni.cpp",
             "i16_attention_ymm_equals_the_512_bit_op", vex_vnni_below_avx512},
            {OpKernelId::AttentionI16AvxVnniEvex, FusedOp::AttentionInt16, "attention_i16_avx_vnni_evex", CpuClass::AvxVnni,
             "the same, class avx_vnni on an AVX512-VNNI CPU (EVEX)", "kernels/cpu/ops/attention_i16_avx_vnni.cpp",
             "i16_attention_ymm_equals_the_512_bit_op", evex_vnni_below_avx512},
            {OpKernelId::AttentionI16Avx2, FusedOp::AttentionInt16, "attention_i16_avx2", CpuClass::Avx2, "the same on AVX2 (VPMADDWD) below AVX-512",
             "kernels/cpu/ops/attention_i16_avx2.cpp", "i16_attention_ymm_equals_the_512_bit_op", below_avx512},
            {OpKernelId::AttentionAmxBf16, FusedOp::AttentionBf16, "attention_amx_bf16", CpuClass::Amx,
             "its products on BF16 tiles when the matmuls do", "kernels/cpu/ops/attention_amx_bf16.cpp", "amx_attention_stays_near_float64"},
            {OpKernelId::LayerNormAvx512, FusedOp::LayerNorm, "layer_norm_avx512", CpuClass::Avx512,
             "layer norm writing the next matmul's activation rows", "kernels/cpu/ops/layer_norm_op.cpp", "test/native/packed-kernels.test.ts"},
            {OpKernelId::LayerNormAvx2, FusedOp::LayerNorm, "layer_norm_avx2", CpuClass::Avx2, "the same where there is no AVX-512 (width % 8 == 0)",
             "kernels/cpu/ops/layer_norm_avx2.cpp", "avx2_layer_norm_rows_match_float64"},
            {OpKernelId::ConvModuleAvx512, FusedOp::ConvModule, "conv_module_avx512", CpuClass::Avx512,
             "the conformer convolution's GLU, depthwise conv and SiLU", "kernels/cpu/ops/conv_module_op.cpp", "test/native/packed-kernels.test.ts"},
            {OpKernelId::ConvModuleAvx2, FusedOp::ConvModule, "conv_module_avx2", CpuClass::Avx2, "the same where there is no AVX-512",
             "kernels/cpu/ops/conv_module_avx2.cpp", "avx2_conv_module_rows_match_float64"},
            {OpKernelId::SubsamplingAvx512, FusedOp::Subsampling, "subsampling_avx512", CpuClass::Avx512,
             "conv.0 and the first depthwise conv of dw_striding", "kernels/cpu/ops/subsampling_op.cpp",
             "subsampling_depthwise_rows_equal_quantized_f32_rows"},
            {OpKernelId::SubsamplingAvx2, FusedOp::Subsampling, "subsampling_avx2", CpuClass::Avx2, "the same where there is no AVX-512",
             "kernels/cpu/ops/subsampling_avx2.cpp", "avx2_subsampling_rows_match_float64"},
            {OpKernelId::LstmCellAvx512, FusedOp::LstmCell, "lstm_cell_avx512", CpuClass::Avx512, "the prediction LSTM's cell",
             "kernels/cpu/ops/lstm_cell.cpp", "test/native/decoder-parity.test.ts"},
            {OpKernelId::F32GemvAvx512, FusedOp::F32Gemv, "f32_gemv_avx512", CpuClass::Avx512, "the decoders' F32 per-step products",
             "kernels/cpu/matmul/f32_gemv.cpp", "row_split_transducer_equals_one_thread"},
            {OpKernelId::Int8DecoderVnni, FusedOp::Int8Decoder, "int8_decoder_vnni", CpuClass::Avx512Vnni,
             "weightType int8: the LSTM's and the joint's products", "kernels/cpu/matmul/int8_decoder_vnni.cpp",
             "int8_gemv_matches_float64_within_int8_error"},
            {OpKernelId::Int8DecoderAvx2, FusedOp::Int8Decoder, "int8_decoder_avx2", CpuClass::Avx2,
             "the same where there is no AVX512-VNNI (equal outputs)", "kernels/cpu/matmul/int8_decoder_avx2.cpp",
             "int8_gemv_kernels_give_equal_outputs"},
            {OpKernelId::LogMelAvx512, FusedOp::LogMel, "log_mel_avx512", CpuClass::Avx512, "the float64 log-mel featurizer, 8 frames at a time",
             "kernels/cpu/ops/preprocessor.cpp", "test/native/parity.test.ts"},
            {OpKernelId::StreamAttentionAvx512, FusedOp::StreamAttention, "stream_attention_avx512", CpuClass::Avx512,
             "a cache-aware stream's attention over its key window, K/V caches read in place (head width a multiple of 16; PARAKEET_STREAM_FUSED=0 "
             "keeps ggml's ops)",
             "kernels/cpu/ops/stream_attention_op.cpp", "test/native/stream-attention-op.test.ts"},
            {OpKernelId::WindowShift, FusedOp::WindowShift, "window_shift", CpuClass::Scalar,
             "a stream's attention and conv caches shifted in place (one memmove) on the CPU", "kernels/cpu/ops/window_shift_op.cpp",
             "test/native/stream-reference.test.ts"},
    };
    return rows;
}

const OpKernelRow * choose_op_kernel(FusedOp op, const CpuFeatures & cpu) {
    for (const OpKernelRow & row : op_kernel_table()) {
        if (row.op == op && cpu.has(row.cpu_class) && (row.needs == nullptr || row.needs(cpu))) return &row;
    }
    return nullptr;
}

const char * op_kernel_name(OpKernelId id) {
    for (const OpKernelRow & row : op_kernel_table()) {
        if (row.id == id) return row.name;
    }
    return "unknown";
}

std::vector<float> weight_values(const void * src, ggml_type type, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    if (type == GGML_TYPE_F32) {
        std::memcpy(out.data(), src, size_t(n) * sizeof(float));
        return out;
    }
    const ggml_type_traits * traits = ggml_get_type_traits(type);
    if (traits->to_float == nullptr) throw Error(ErrorCode::ModelInvalid, std::string("cannot read tensors of type ") + ggml_type_name(type));
    traits->to_float(src, out.data(), n);
    return out;
}

}  // namespace parakeet
