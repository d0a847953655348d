// The device registry and the device picker (architecture.md, "Backend").
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "backend_libraries.h"
#include "cpu_features.h"
#include "gpu_properties.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "log.h"
#include "parakeet/parakeet.h"
#include "registry.h"

namespace parakeet {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

DeviceType to_device_type(enum ggml_backend_dev_type type) {
    switch (type) {
        case GGML_BACKEND_DEVICE_TYPE_GPU: return DeviceType::Gpu;
        case GGML_BACKEND_DEVICE_TYPE_IGPU: return DeviceType::IGpu;
        case GGML_BACKEND_DEVICE_TYPE_ACCEL: return DeviceType::Accel;
        default: return DeviceType::Cpu;
    }
}

std::vector<std::string> cpu_features(ggml_backend_reg_t reg) {
    std::vector<std::string> out;
    auto get = reinterpret_cast<ggml_backend_get_features_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features"));
    if (get == nullptr) return out;
    for (ggml_backend_feature * f = get(reg); f != nullptr && f->name != nullptr; ++f) {
        const std::string value = f->value ? f->value : "";
        if (value == "0" || value.empty()) continue;
        const std::string name = f->name;
        // Numeric features (e.g. SVE_CNT) and build flags carry their value.
        out.push_back(value == "1" ? name : name + "=" + value);
    }
    return out;
}

/** Mesa's lavapipe reports itself as "llvmpipe (LLVM …)"; SwiftShader by name. */
bool is_software_renderer(const std::string & description) {
    const std::string d = lower(description);
    return d.find("llvmpipe") != std::string::npos || d.find("lavapipe") != std::string::npos || d.find("swiftshader") != std::string::npos;
}

/** Which of the registry's Vulkan devices with this description `dev` is (0 unless two identical GPUs). */
int same_description_index(ggml_backend_dev_t dev, ggml_backend_reg_t reg, const std::string & description) {
    int index = 0;
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); ++i) {
        ggml_backend_dev_t other = ggml_backend_reg_dev_get(reg, i);
        if (other == dev) break;
        if (description == ggml_backend_dev_description(other)) ++index;
    }
    return index;
}

DeviceInfo describe(ggml_backend_dev_t dev) {
    DeviceInfo info;
    ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);
    info.name = props.name ? props.name : "";
    info.description = props.description ? props.description : "";
    info.type = to_device_type(props.type);
    info.memory_free = props.memory_free;
    info.memory_total = props.memory_total;
    info.device_id = props.device_id ? props.device_id : "";
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    info.backend = reg ? ggml_backend_reg_name(reg) : "";
    if (reg != nullptr && info.backend == "Vulkan")
        info.gpu = vulkan_properties(info.description, same_description_index(dev, reg, info.description));
    // The driver's own word (a CPU-typed Vulkan device) where known; the product names otherwise.
    info.software_renderer = info.type != DeviceType::Cpu && (is_software_renderer(info.description) || (info.gpu && info.gpu->cpu_device));
    if (info.type == DeviceType::Cpu) {
        info.cpu_features = cpu_features(reg);
        // The engine's own kernel classes beyond ggml's list (cpu_features.h), after any
        // PARAKEET_CPU_CLASS cap: what its kernels may use in this process.
        const CpuFeatures & engine = parakeet::cpu_features();
        if (engine.has(CpuClass::Avx2)) info.cpu_features.push_back("PARAKEET_AVX2");
        if (engine.avx_vnni_vex() || engine.avx_vnni_evex()) info.cpu_features.push_back("PARAKEET_AVX_VNNI");
        if (engine.has(CpuClass::Avx512)) info.cpu_features.push_back("PARAKEET_AVX512");
        if (engine.has(CpuClass::Avx512Vnni)) info.cpu_features.push_back("PARAKEET_AVX512_VNNI");
        if (engine.has(CpuClass::Amx)) info.cpu_features.push_back("PARAKEET_AMX_BF16");
        const std::string cap_problem = engine.cap_problem;
        if (!cap_problem.empty()) log_line(LogLevel::Warn, cap_problem);
        info.cpu_threads = int(std::max(1u, std::thread::hardware_concurrency()));
    }
    return info;
}

ggml_backend_dev_t cpu_device() {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (dev == nullptr) throw Error(ErrorCode::DeviceUnavailable, "no CPU backend is registered in this build of ggml");
    return dev;
}

#ifdef PARAKEET_BACKEND_DL
/** The folder load_backends() loaded the backend libraries from (empty: ggml's own search). */
std::string & backend_dir() {
    static std::string dir;
    return dir;
}
#endif

void ensure_backends_loaded() {
    install_ggml_log_hook();
#ifdef PARAKEET_BACKEND_DL
    if (ggml_backend_reg_count() == 0) ggml_backend_load_all();
#endif
}

}  // namespace

void load_backends(const std::string & dir) {
    install_ggml_log_hook();
#ifdef PARAKEET_BACKEND_DL
    if (ggml_backend_reg_count() == 0) {
        backend_dir() = dir;
        if (dir.empty())
            ggml_backend_load_all();
        else
            ggml_backend_load_all_from_path(dir.c_str());
    }
#else
    (void)dir;
#endif
}

BuildInfo build_info() {
    ensure_backends_loaded();
    BuildInfo info;
    info.ggml_version = ggml_version();
    info.ggml_commit = PARAKEET_GGML_COMMIT;
    info.ggml_source = PARAKEET_GGML_SOURCE;
#ifdef PARAKEET_BACKEND_DL
    info.backend_dl = true;
#endif
    for (size_t i = 0; i < ggml_backend_reg_count(); ++i) info.backends.emplace_back(ggml_backend_reg_name(ggml_backend_reg_get(i)));
#ifdef PARAKEET_BACKEND_DL
    if (!backend_dir().empty()) info.backends_not_loaded = unloaded_backend_libraries(backend_dir(), info.backends);
#endif
    for (const KernelRow & row : kernel_table()) info.matmul_kernels.emplace_back(row.name);
    for (const OpKernelRow & row : op_kernel_table()) info.op_kernels.emplace_back(row.name);
    return info;
}

std::vector<DeviceInfo> list_devices() {
    ensure_backends_loaded();
    std::vector<DeviceInfo> out;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) out.push_back(describe(ggml_backend_dev_get(i)));
    return out;
}

// Declared in compute_backend.h; here because it shares the lookup helpers.
ggml_backend_dev_t find_device(const std::string & name) {
    ensure_backends_loaded();
    const std::string wanted = lower(name);
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (lower(ggml_backend_dev_name(dev)) == wanted) return dev;
    }
    return nullptr;
}

DeviceSelection select_device(const std::string & requested_arg) {
    ensure_backends_loaded();
    DeviceSelection sel;
    std::string requested = requested_arg;
    sel.source = "argument";
    if (requested.empty() || lower(requested) == "auto") {
        const char * env = std::getenv("PARAKEET_DEVICE");
        if (requested.empty() && env != nullptr && *env != '\0' && lower(env) != "auto") {
            requested = env;
            sel.source = "environment";
        } else {
            requested.clear();
            sel.source = "auto";
        }
    }
    sel.requested = requested;

    if (!requested.empty()) {
        ggml_backend_dev_t dev = find_device(requested);
        if (dev != nullptr && ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_ACCEL) {
            sel.device = describe(cpu_device());
            sel.fell_back = true;
            sel.reason = "'" + requested + "' is an accelerator that works alongside the CPU, not a device of its own; using the CPU";
            return sel;
        }
        if (dev != nullptr) {
            sel.device = describe(dev);
            sel.reason = std::string("requested by ") + (sel.source == "environment" ? "PARAKEET_DEVICE" : "name");
            return sel;
        }
        std::string known;
        for (const DeviceInfo & d : list_devices()) known += (known.empty() ? "" : ", ") + d.name;
        sel.device = describe(cpu_device());
        sel.fell_back = true;
        sel.reason = "no device named '" + requested + "' (this machine has: " + known + "); using the CPU";
        return sel;
    }

    // Auto: the first discrete GPU, else the first integrated GPU, else the CPU. A software renderer
    // (a Vulkan driver running on this CPU) is skipped: it would only be a slower CPU.
    std::string skipped;
    for (enum ggml_backend_dev_type type : {GGML_BACKEND_DEVICE_TYPE_GPU, GGML_BACKEND_DEVICE_TYPE_IGPU}) {
        for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
            ggml_backend_dev_t dev = ggml_backend_dev_get(i);
            if (ggml_backend_dev_type(dev) != type) continue;
            DeviceInfo info = describe(dev);
            if (info.software_renderer) {
                if (skipped.empty()) skipped = info.name + " (" + info.description + ")";
                continue;
            }
            sel.device = std::move(info);
            sel.reason = std::string("automatic: first ") + (type == GGML_BACKEND_DEVICE_TYPE_GPU ? "GPU" : "integrated GPU");
            return sel;
        }
    }
    sel.device = describe(cpu_device());
    sel.reason = skipped.empty() ? "automatic: no GPU found, using the CPU"
                                 : "automatic: " + skipped +
                                           " is a software renderer that runs on the CPU, so the CPU itself is used (name it to use it anyway)";
    return sel;
}

}  // namespace parakeet
