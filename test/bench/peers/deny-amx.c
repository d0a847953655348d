/*
 * LD_PRELOAD shim for `npm run bench:peers -- --no-amx`: the kernel's AMX tile-data permission
 * (arch_prctl ARCH_REQ_XCOMP_PERM, Linux ≥ 5.16) is refused and reported as not granted, through
 * libc's syscall(), which is how ONNX Runtime's MLAS and our engine (native/engine/amx.cpp) both
 * ask. Both then run their AVX512-VNNI kernels: the same CPU as an AVX512-VNNI machine without AMX
 * (Ice Lake / Cascade Lake class ISA), measured in one run against the same peer. Benchmarks only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

enum { kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023, kXfeatureTileData = 18 };

long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_arch_prctl && a[0] == kArchReqXcompPerm && a[1] == kXfeatureTileData) {
        errno = EPERM;
        return -1;
    }
    static long (*real_syscall)(long, ...);
    if (!real_syscall) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    long r = real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (r == 0 && number == SYS_arch_prctl && a[0] == kArchGetXcompPerm && a[1] != 0)
        *(unsigned long *)a[1] &= ~(1ul << kXfeatureTileData); /* never granted here */
    return r;
}
