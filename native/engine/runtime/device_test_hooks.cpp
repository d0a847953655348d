#include "device_test_hooks.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "log.h"

namespace parakeet {

DeviceTestHooks DeviceTestHooks::from_environment() {
    DeviceTestHooks hooks;
    if (const char * ops = std::getenv("PARAKEET_SCHED_CPU_OPS")) {
        std::stringstream list(ops);
        std::string op;
        while (std::getline(list, op, ',')) {
            if (!op.empty()) hooks.cpu_ops.push_back(op);
        }
    }
    if (const char * fault = std::getenv("PARAKEET_DEVICE_FAULT")) {
        const std::string value = fault;
        hooks.init_fault = value == "init";
        hooks.init_throws = value == "init-throw";
        hooks.weights_fault = value == "weights";
        if (!value.empty() && !hooks.init_fault && !hooks.init_throws && !hooks.weights_fault && value != "compute" && value != "compute-throw") {
            log_line(LogLevel::Warn, "PARAKEET_DEVICE_FAULT='" + value + "' is not init, init-throw, weights, compute or compute-throw; ignored");
        }
    }
    return hooks;
}

bool DeviceTestHooks::compute_fault_now() {
    const char * fault = std::getenv("PARAKEET_DEVICE_FAULT");
    return fault != nullptr && std::string(fault) == "compute";
}

bool DeviceTestHooks::compute_throws_now() {
    const char * fault = std::getenv("PARAKEET_DEVICE_FAULT");
    return fault != nullptr && std::string(fault) == "compute-throw";
}

bool DeviceTestHooks::pins_to_cpu(const ggml_tensor * node) const {
    if (cpu_ops.empty()) return false;
    const std::string op = ggml_op_desc(node);
    return std::find(cpu_ops.begin(), cpu_ops.end(), op) != cpu_ops.end();
}

}  // namespace parakeet
