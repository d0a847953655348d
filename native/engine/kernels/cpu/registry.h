// The kernel registry: one row per kernel the engine runs a matmul weight on (its id, the weight
// storage it takes, the CPU class it needs, when it fits, its bytes, how it is packed), in order of
// preference, and the one choose_kernel() that picks a row for a weight. ModelWeights (model/)
// decides a weight's layout (the type it is placed in, and the arithmetic LoadParams::weight_type
// and the tensor table ask for); which kernel runs it is decided here, once per weight. Where no
// row fits, ggml's own kernels run the weight.
//
// A new kernel is one row in registry.cpp: the generated kernel test (native/tests/
// kernel_rows_tests.cpp), ModelInfo.kernels and the kernel table (parakeet_kernel_table, the
// docs) all read the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_features.h"
#include "ggml.h"
#include "packed_weights.h"

namespace parakeet {

class Q8RelPosProjection;  // q8_0_rel_pos_vnni.h

/** Every kernel of the table (the rows' ids; KernelRow::name is the id as text). */
enum class KernelId {
    F32AmxBf16,
    Int8ChannelAmx,
    Int8ChannelVnni,
    Int8ChannelAvxVnni,
    Int8ChannelAvxVnniEvex,
    Int8ChannelAvx2,
    I16Vnni,
    I16AvxVnni,
    I16AvxVnniEvex,
    I16Avx2,
    Q8_0RelPosVnni,
    Q8_0AmxBf16,
    Q8_0Vnni,
    Q8_0AvxVnni,
    Q8_0AvxVnniEvex,
    Q8_0Avx2,
    Q4_KVnni,
    Q4_KAvxVnni,
    Q4_KAvxVnniEvex,
    Q4_KAvx2,
    F16Avx512,
    F16Avx2,
    F32Avx512,
    F32Avx2,
};

/** The arithmetic a weight's layout asks for. */
enum class KernelNumerics {
    Stored,       // the placed type's own: F32 / F16 exact, Q8_0 and Q4_K blocks times 8-bit activations
    Int16,        // F32 / F16 weights as 14-bit integers per 32-block (weightType 'i16'; 'auto' for F32 weights)
    ChannelInt8,  // any weights as per-channel int8 (weightType 'int8', explicitly lossy)
    Exact,        // F32 arithmetic on the placed values only: the tensor table's Exact matmuls (the decision path)
};

constexpr unsigned numerics_bit(KernelNumerics n) { return 1u << unsigned(n); }

/** Weight storage a row takes (a mask). */
enum WeightStorage : unsigned {
    kStoresF32 = 1u << 0,
    kStoresF16 = 1u << 1,
    kStoresQ8_0 = 1u << 2,
    kStoresQ4_K = 1u << 3,
    kStoresAny = 1u << 4,  // any type ggml can read as F32 (packed from its values)
};

/** How a row serves linear_pos weights that the fused attention op reads (rel_pos_projection.h). */
enum class KernelHalves {
    Whole,          // whole matrices only
    WholeOrHalves,  // whole matrices, or linear_pos as two column-half matrices of this row
    HalvesOnly,     // linear_pos as column halves only
    BlockHalves,    // linear_pos only, halves inside each Q8_0 block (q8_0_rel_pos_vnni.h)
};

/** One weight asking for a kernel. */
struct KernelRequest {
    ggml_type placed = GGML_TYPE_F32;  // the weight's type as placed (after any load-time conversion)
    int64_t rows = 0, cols = 0;        // [rows out][cols in]
    KernelNumerics numerics = KernelNumerics::Stored;
    bool bf16_tiles = false;     // the layout accepts AMX-BF16 tiles ('auto' with a block-quantized file)
    bool column_halves = false;  // linear_pos read by the fused attention op
};

/** A weight's bytes as placed, for a row's constructor. */
struct WeightData {
    const void * data = nullptr;
    ggml_type type = GGML_TYPE_F32;
    int64_t rows = 0, cols = 0;
};

/** What packing one weight makes: a whole matrix, its two column halves, or the Q8_0 halves projection. */
struct PackedProduct {
    std::unique_ptr<PackedMatmul> matrix;
    std::unique_ptr<RelPosProjection> halves;
    std::shared_ptr<const Q8RelPosProjection> q8_halves;
    /** Bytes its packed form takes. */
    size_t bytes() const;
};

struct KernelRow {
    KernelId id;
    const char * name;  // the id as ModelInfo.kernels and the docs show it
    CpuClass cpu_class;
    unsigned numerics;  // numerics_bit() mask of Stored, Int16, ChannelInt8 (rows with `exact` also serve Exact)
    unsigned takes;     // WeightStorage mask
    bool exact;         // F32 arithmetic on the stored values
    bool bf16_tiles;    // taken only where the request accepts BF16 tiles
    KernelHalves halves;
    bool (*fits)(int64_t rows, int64_t cols);        // a whole matrix
    bool (*halves_fit)(int64_t rows, int64_t cols);  // linear_pos [rows][cols] as halves; nullptr: Whole
    size_t (*storage_bytes)(int64_t rows, int64_t cols);
    /** The packed matrix from `w` (any readable type: the row converts what it needs) in `storage`; nullptr for BlockHalves. */
    std::unique_ptr<PackedMatmul> (*make)(const WeightData & w, uint8_t * storage);
    // For the table and the generated test:
    const char * weights;      // the storage it takes, in words
    const char * chosen_when;  // the layouts and shapes that choose it
    const char * file;         // its source, under native/engine
    double tolerance;          // relative L2 from float64 over the placed values that the generated test allows
    /** A feature the class does not imply (e.g. AVX-VNNI for an avx_vnni row); nullptr: the class suffices. */
    bool (*needs)(const CpuFeatures & cpu) = nullptr;
};

/** The class allows the row and the CPU has what it needs beyond it. */
inline bool row_runs_on(const KernelRow & row, const CpuFeatures & cpu) { return cpu.has(row.cpu_class) && (row.needs == nullptr || row.needs(cpu)); }

/** Every row, in order of preference. */
const std::vector<KernelRow> & kernel_table();
const KernelRow & kernel_row(KernelId id);

/** A row and how it runs the weight; row == nullptr: no engine kernel (ggml runs it). */
struct KernelChoice {
    const KernelRow * row = nullptr;
    bool halves = false;  // linear_pos as halves (column halves, or the block halves of a BlockHalves row)
};

/** The first row, in order of preference, that the CPU class allows and that takes and fits the weight; halves first where asked. */
KernelChoice choose_kernel(const KernelRequest & request, const CpuFeatures & cpu = cpu_features());

/** The row `id` runs on this CPU (its class, capped, and what it needs). */
inline bool kernel_row_runs(KernelId id, const CpuFeatures & cpu = cpu_features()) { return row_runs_on(kernel_row(id), cpu); }

/** Some row of these numerics runs `placed` weights on this CPU (whatever the shape). */
bool kernel_runs(KernelNumerics numerics, ggml_type placed, const CpuFeatures & cpu = cpu_features());

/** Bytes the choice takes in the packed arena: one matrix, or each of the two halves (each rounded to 64). */
size_t packed_bytes(const KernelChoice & choice, int64_t rows, int64_t cols);

/** Packs `w` as `choice` says: storage (and second_half for column halves) from the arena, packed_bytes long each. */
PackedProduct pack_weight(const KernelChoice & choice, const WeightData & w, uint8_t * storage, uint8_t * second_half);

/**
 * The fused ops and the decoders' per-step products beside the matmul rows: each op checks its own
 * class (cpu_features()) where the graph or the decoder calls it. ModelInfo.kernels names every one a
 * load runs by these ids (model_weights.cpp asks choose_op_kernel() per op its model uses), and the
 * kernel table lists them all.
 */
enum class OpKernelId {
    AttentionF32Avx512,
    AttentionF32Avx2,
    AttentionI16Vnni,
    AttentionI16AvxVnni,
    AttentionI16AvxVnniEvex,
    AttentionI16Avx2,
    AttentionAmxBf16,
    LayerNormAvx512,
    LayerNormAvx2,
    ConvModuleAvx512,
    ConvModuleAvx2,
    SubsamplingAvx512,
    SubsamplingAvx2,
    LstmCellAvx512,
    F32GemvAvx512,
    Int8DecoderVnni,
    Int8DecoderAvx2,
    LogMelAvx512,
    StreamAttentionAvx512,
    WindowShift,
};

/** What a fused-op row does: the rows of one op are its variants, in order of preference. */
enum class FusedOp {
    Attention,       // the relative-position attention, F32 products
    AttentionInt16,  // its products in 14-bit integers (chosen with the quantized matmuls, by head width)
    AttentionBf16,   // its products on BF16 tiles (chosen with the AMX matmuls, by head width)
    LayerNorm,
    ConvModule,
    Subsampling,
    LstmCell,
    F32Gemv,
    Int8Decoder,
    LogMel,
    StreamAttention,
    WindowShift,
};

struct OpKernelRow {
    OpKernelId id;
    FusedOp op;
    const char * name;
    CpuClass cpu_class;
    const char * chosen_when;
    const char * file;  // under native/engine
    const char * test;  // the C++ case or TS test that checks it
    /** What the row needs beyond its class (as KernelRow::needs); nullptr: the class suffices. */
    bool (*needs)(const CpuFeatures & cpu) = nullptr;
};

const std::vector<OpKernelRow> & op_kernel_table();
const char * op_kernel_name(OpKernelId id);
/** The first row of `op`, in order of preference, that the CPU class allows (and what it needs); nullptr: none (the op's plain C++ path, or none at all). */
const OpKernelRow * choose_op_kernel(FusedOp op, const CpuFeatures & cpu = cpu_features());

/** `src` (n values of ggml type `type`) as F32. */
std::vector<float> weight_values(const void * src, ggml_type type, int64_t n);

}  // namespace parakeet
