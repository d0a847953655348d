// Prints what the engine's CPU probe (kernels/cpu/common/cpu_features.h) sees, as one line of key=value
// pairs: the class the kernel registry will use and the CPUID/XCR0 bits it came from. scripts/test-emulated.mjs
// runs it under each QEMU CPU model to prove the class is picked by detection, not forced by PARAKEET_CPU_CLASS.
#include <cstdio>

#include "cpu_features.h"

using namespace parakeet;

int main() {
    const CpuFeatures & f = cpu_features();
    std::printf(
            "class=%s hardware=%s avx2=%d fma=%d f16c=%d avx_vnni=%d avx512f=%d avx512bw=%d avx512vl=%d avx512_vnni=%d "
            "avx512_bf16=%d os_saves_avx512=%d amx_usable=%d\n",
            cpu_class_name(f.usable()), cpu_class_name(f.hardware), f.avx2, f.fma, f.f16c, f.avx_vnni, f.avx512f, f.avx512bw, f.avx512vl,
            f.avx512_vnni, f.avx512_bf16, f.os_saves_avx512, f.amx_usable);
    if (!f.cap_problem.empty()) std::fprintf(stderr, "%s\n", f.cap_problem.c_str());
    return 0;
}
