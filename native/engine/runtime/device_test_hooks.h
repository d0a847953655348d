// Test hooks for the GPU half of the device picker, read from the environment when a compute device
// starts (ComputeBackend). They exist because the paths they open never run on their own on a test
// machine: Vulkan has a kernel for every op our GPU graphs use, so ggml_backend_sched never falls back to
// the CPU, and a software Vulkan driver (lavapipe) does not fail on demand. Unset, they change nothing.
//
//   PARAKEET_SCHED_CPU_OPS=SOFT_MAX,NORM  on a non-CPU device, every graph goes through
//       ggml_backend_sched and the nodes of these ops (ggml_op_desc names: "MUL_MAT", "SOFT_MAX", a unary
//       op's own name such as "SILU") are pinned to the CPU with ggml_backend_sched_set_tensor_backend,
//       the placement the scheduler makes for an op the device lacks.
//   PARAKEET_DEVICE_FAULT=init|init-throw|weights|compute|compute-throw    a non-CPU device fails to start
//       (`init`: its init returns nothing, as a driver without the device; `init-throw`: its init throws, as
//       ggml-vulkan's createDevice does with vk::SystemError and "Unsupported device"), has no room for the
//       model's weights (`weights`: a GPU with too little memory), or each of its graph computes reports
//       failure (`compute`) or throws (`compute-throw`: ggml-vulkan throws vk::DeviceLostError from a lost
//       device). The compute faults are read at every compute, so a test can break a device after it passed
//       its load-time self-test.
#pragma once

#include <string>
#include <vector>

#include "ggml.h"

namespace parakeet {

struct DeviceTestHooks {
    std::vector<std::string> cpu_ops;  // ggml_op_desc names pinned to the CPU (non-CPU devices only)
    bool init_fault = false;           // PARAKEET_DEVICE_FAULT=init when the device started
    bool init_throws = false;          // PARAKEET_DEVICE_FAULT=init-throw
    bool weights_fault = false;        // PARAKEET_DEVICE_FAULT=weights

    /** The hooks the environment asks for now; an unknown PARAKEET_DEVICE_FAULT value is logged and ignored. */
    static DeviceTestHooks from_environment();

    /** PARAKEET_DEVICE_FAULT=compute, read now. */
    static bool compute_fault_now();

    /** PARAKEET_DEVICE_FAULT=compute-throw, read now. */
    static bool compute_throws_now();

    /** Whether `node`'s op is one of cpu_ops. */
    bool pins_to_cpu(const ggml_tensor * node) const;
};

}  // namespace parakeet
