// Prints the kernel registry (native/engine/kernels/cpu/registry.cpp) as a markdown table, in the
// order choose_kernel() prefers the rows: npm run docs:kernel-table. The docs' kernel table is this
// output, so it cannot drift from the code.
#include <cstdio>
#include <string>

#include "registry.h"

using namespace parakeet;

namespace {

std::string numerics_text(const KernelRow & row) {
    std::string out;
    auto add = [&out](const char * s) { out += out.empty() ? s : std::string(", ") + s; };
    if ((row.numerics & numerics_bit(KernelNumerics::Stored)) != 0) add(row.exact ? "stored (exact)" : "stored");
    if ((row.numerics & numerics_bit(KernelNumerics::Int16)) != 0) add("14-bit");
    if ((row.numerics & numerics_bit(KernelNumerics::ChannelInt8)) != 0) add("per-channel int8");
    if (row.bf16_tiles) out += "; BF16 tiles";
    return out;
}

const char * halves_text(KernelHalves h) {
    switch (h) {
        case KernelHalves::Whole: return "";
        case KernelHalves::WholeOrHalves: return " (linear_pos: column halves)";
        case KernelHalves::HalvesOnly: return " (linear_pos column halves only)";
        case KernelHalves::BlockHalves: return " (linear_pos, halves inside each block)";
    }
    return "";
}

}  // namespace

int main() {
    std::printf("| id | weights | CPU class | arithmetic | chosen when | file | test |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const KernelRow & row : kernel_table()) {
        std::printf("| `%s` | %s | %s | %s | %s%s | `%s` | `kernel_row_%s` |\n", row.name, row.weights, cpu_class_name(row.cpu_class),
                    numerics_text(row).c_str(), row.chosen_when, halves_text(row.halves), row.file, row.name);
    }
    std::printf(
            "\nRows in order of preference: choose_kernel() takes the first row the CPU class allows (PARAKEET_CPU_CLASS caps it) that "
            "takes the weight's storage and arithmetic and fits its shape; linear_pos weights of the fused attention try the halves rows "
            "first. No row: ggml's kernels run the weight.\n");
    std::printf("\n| op | CPU class | what it fuses | file | test |\n|---|---|---|---|---|\n");
    for (const OpKernelRow & row : op_kernel_table()) {
        std::printf("| `%s` | %s | %s | `%s` | `%s` |\n", row.name, cpu_class_name(row.cpu_class), row.chosen_when, row.file, row.test);
    }
    std::printf("\nBelow its class each op runs its scalar path or ggml's ops.\n");
    return 0;
}
