#include "compute_backend.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <chrono>
#include <thread>

#include "log.h"
#include "thread_clock.h"
#include "thread_work.h"

#ifndef PARAKEET_BACKEND_DL
#include "ggml-cpu.h"
#endif

namespace parakeet {
namespace {

bool abort_requested(void * data) {
    auto * flag = static_cast<const std::atomic<bool> * const *>(data);
    return *flag != nullptr && (*flag)->load(std::memory_order_relaxed);
}

void set_cpu_threads(ggml_backend_t backend, ggml_backend_dev_t dev, int n) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    auto fn = reinterpret_cast<ggml_backend_set_n_threads_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads"));
    if (fn != nullptr) fn(backend, n);
}

void set_abort_hook(ggml_backend_t backend, ggml_backend_dev_t dev, const std::atomic<bool> * const * slot) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    auto fn = reinterpret_cast<ggml_backend_set_abort_callback_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback"));
    if (fn != nullptr) fn(backend, abort_requested, const_cast<const std::atomic<bool> **>(slot));
}

}  // namespace

ComputeBackend::ComputeBackend(DeviceSelection & selection, int n_threads, bool always_schedule) : always_schedule_(always_schedule) {
    cpu_device_ = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (cpu_device_ == nullptr) throw Error(ErrorCode::DeviceUnavailable, "no CPU backend is registered in this build of ggml");
    n_threads_ = n_threads > 0 ? n_threads : int(std::max(1u, std::thread::hardware_concurrency()));

    device_ = find_device(selection.device.name);
    if (device_ == nullptr) device_ = cpu_device_;
    if (device_ != cpu_device_) hooks_ = DeviceTestHooks::from_environment();
    const bool simulated_init_fault = hooks_.init_fault;
    std::string why;
    try {
        if (hooks_.init_throws) throw std::runtime_error("simulated: PARAKEET_DEVICE_FAULT=init-throw");
        backend_ = simulated_init_fault ? nullptr : ggml_backend_dev_init(device_, nullptr);
    } catch (const std::exception & e) {
        // ggml-vulkan does not return null from a device it cannot start: createDevice throws vk::SystemError,
        // an unsupported device a runtime_error. The CPU's own failure is not caught here (nothing to fall back to).
        if (device_ == cpu_device_) throw;
        backend_ = nullptr;
        why = std::string(" (") + e.what() + ")";
    }
    if (backend_ == nullptr && device_ != cpu_device_) {
        // A device that is listed but cannot start (driver fault, out of memory): say so and use the CPU.
        if (simulated_init_fault) why = " (simulated: PARAKEET_DEVICE_FAULT=init)";
        log_line(LogLevel::Warn, "device " + selection.device.name + " failed to initialize" + why + "; falling back to the CPU");
        selection.fell_back = true;
        selection.reason = "device '" + selection.device.name + "' failed to initialize" + why + "; using the CPU";
        hooks_ = DeviceTestHooks{};
        for (const DeviceInfo & d : list_devices()) {
            if (d.type == DeviceType::Cpu) selection.device = d;
        }
        device_ = cpu_device_;
        backend_ = ggml_backend_dev_init(device_, nullptr);
    }
    if (backend_ == nullptr) throw Error(ErrorCode::DeviceUnavailable, "the CPU backend failed to initialize");
    if (device_ == cpu_device_) {
        cpu_backend_ = backend_;
    } else {
        cpu_backend_ = ggml_backend_dev_init(cpu_device_, nullptr);
        if (cpu_backend_ == nullptr) {
            ggml_backend_free(backend_);  // the destructor does not run for a throwing constructor
            backend_ = nullptr;
            throw Error(ErrorCode::DeviceUnavailable, "the CPU backend failed to initialize");
        }
    }
    set_cpu_threads(cpu_backend_, cpu_device_, n_threads_);
    active_threads_ = n_threads_;
#ifndef PARAKEET_BACKEND_DL
    // A persistent pool instead of threads created for every graph: workers (and the custom ops'
    // per-thread scratch) outlive a call, and with polling off they sleep between graphs instead of
    // spinning while the app idles. (The loadable-backend build has no entry point for it.)
    if (n_threads_ > 1) {
        ggml_threadpool_params tp = ggml_threadpool_params_default(n_threads_);
        tp.poll = 0;
        threadpool_ = ggml_threadpool_new(&tp);
        if (threadpool_ != nullptr) ggml_backend_cpu_set_threadpool(cpu_backend_, threadpool_);
    }
#endif
    set_abort_hook(cpu_backend_, cpu_device_, &abort_flag_);
    if (backend_ != cpu_backend_) set_abort_hook(backend_, device_, &abort_flag_);
}

ComputeBackend::~ComputeBackend() {
    if (sched_ != nullptr) ggml_backend_sched_free(sched_);
    if (gallocr_ != nullptr) ggml_gallocr_free(gallocr_);
    if (cpu_backend_ != nullptr && cpu_backend_ != backend_) ggml_backend_free(cpu_backend_);
    if (backend_ != nullptr) ggml_backend_free(backend_);
#ifndef PARAKEET_BACKEND_DL
    if (threadpool_ != nullptr) ggml_threadpool_free(threadpool_);
    if (profile_pool_ != nullptr) ggml_threadpool_free(profile_pool_);
#endif
}

void ComputeBackend::set_active_threads(int n) {
    n = std::max(1, std::min(n, n_threads_));
    if (n == active_threads_) return;
    set_cpu_threads(cpu_backend_, cpu_device_, n);
    active_threads_ = n;
}

std::string ComputeBackend::device_name() const { return ggml_backend_dev_name(device_); }

std::vector<ggml_backend_buffer_type_t> ComputeBackend::cpu_extra_buffer_types() const {
    std::vector<ggml_backend_buffer_type_t> out;
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(cpu_device_);
    auto get = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
    if (get == nullptr) return out;
    for (ggml_backend_buffer_type_t * b = get(cpu_device_); b != nullptr && *b != nullptr; ++b) out.push_back(*b);
    return out;
}

bool ComputeBackend::device_runs_whole_graph(ggml_cgraph * graph) const {
    if (device_ == cpu_device_) return true;
    if (!hooks_.cpu_ops.empty()) return false;  // PARAKEET_SCHED_CPU_OPS: the scheduler places those ops on the CPU
    const int n = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n; ++i) {
        if (!ggml_backend_dev_supports_op(device_, ggml_graph_node(graph, i))) return false;
    }
    return true;
}

size_t ComputeBackend::compute_buffer_bytes() const {
    size_t total = 0;
    if (gallocr_ != nullptr) total += ggml_gallocr_get_buffer_size(gallocr_, 0);
    if (sched_ != nullptr) {
        total += ggml_backend_sched_get_buffer_size(sched_, backend_);
        if (cpu_backend_ != backend_) total += ggml_backend_sched_get_buffer_size(sched_, cpu_backend_);
    }
    return total;
}

namespace {

/** "encoder.layers.7.feed_forward1.linear1.weight" → "feed_forward1.linear1" (the weight's role in any layer). */
std::string weight_role(const std::string & name) {
    std::string role = name;
    const std::string layers = "encoder.layers.";
    if (role.rfind(layers, 0) == 0) {
        const size_t dot = role.find('.', layers.size());
        role = dot == std::string::npos ? role : role.substr(dot + 1);
    } else if (role.rfind("encoder.", 0) == 0) {
        role = role.substr(8);
    }
    const std::string suffix = ".weight";
    if (role.size() > suffix.size() && role.compare(role.size() - suffix.size(), suffix.size(), suffix) == 0)
        role.resize(role.size() - suffix.size());
    return role;
}

std::string op_label(const ggml_tensor * node) {
    if (node->op == GGML_OP_UNARY) return ggml_unary_op_name(ggml_get_unary_op(node));
    if (node->op == GGML_OP_CUSTOM) {
        const std::string name = ggml_get_name(node);
        return name.substr(0, name.find(':'));
    }
    return ggml_op_name(node->op);
}

std::string part_label(const ggml_tensor * node, const std::string & graph_part) {
    const ggml_tensor * src0 = node->src[0];
    if (node->op == GGML_OP_MUL_MAT && src0 != nullptr) {
        const std::string w = ggml_get_name(src0);
        if (w.find(".weight") != std::string::npos) return "matmul " + weight_role(w);
        return "matmul activations (attention)";
    }
    if (node->op == GGML_OP_CUSTOM) {
        const std::string name = ggml_get_name(node);
        const size_t colon = name.find(':');
        if (colon != std::string::npos) return "matmul " + weight_role(name.substr(colon + 1));
    }
    return graph_part;
}

}  // namespace

ggml_status ComputeBackend::compute_profiled(ggml_cgraph * graph, EncoderProfile & profile, const char * graph_label,
                                             const std::function<std::string(int)> & part_of) {
    // One node at a time, timed; the allocation (gallocr) is the whole graph's, so results are identical.
    std::vector<uint8_t> meta(ggml_graph_overhead_custom(1, false) + ggml_tensor_overhead());
    ggml_init_params params = {meta.size(), meta.data(), true};
    ggml_context * ctx = ggml_init(params);
    ggml_cgraph * one = ggml_new_graph_custom(ctx, 1, false);
    struct Free {
        ggml_context * c;
        ~Free() { ggml_free(c); }
    } free_ctx{ctx};
#ifndef PARAKEET_BACKEND_DL
    // Each node is a graph of its own here, and between graphs the pool's workers sleep (polling
    // off): waking them for every node added 20–50 µs to each on two threads, so small ops looked
    // several times slower than they run. A pool that polls runs the profiled graphs instead.
    struct PoolSwap {
        ggml_backend_t cpu;
        struct ggml_threadpool * restore;
        ~PoolSwap() {
            if (restore != nullptr) ggml_backend_cpu_set_threadpool(cpu, restore);
        }
    } swap{cpu_backend_, nullptr};
    if (threadpool_ != nullptr && backend_ == cpu_backend_) {
        if (profile_pool_ == nullptr) {
            ggml_threadpool_params tp = ggml_threadpool_params_default(n_threads_);
            tp.poll = 50;
            profile_pool_ = ggml_threadpool_new(&tp);
        }
        if (profile_pool_ != nullptr) {
            ggml_backend_cpu_set_threadpool(cpu_backend_, profile_pool_);
            swap.restore = threadpool_;
        }
    }
#endif
    profile.threads = is_cpu() ? active_threads_ : 0;
    const int n = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n; ++i) {
        ggml_tensor * node = ggml_graph_node(graph, i);
        if (ggml_is_empty(node) || node->op == GGML_OP_NONE || node->op == GGML_OP_VIEW || node->op == GGML_OP_RESHAPE ||
            node->op == GGML_OP_PERMUTE || node->op == GGML_OP_TRANSPOSE) {
            continue;
        }
        ggml_graph_clear(one);
        ggml_graph_add_node(one, node);
        const int given = is_cpu() ? threads_given(one, active_threads_) : 0;
        const ThreadWorkProbe probe(node, is_cpu() ? active_threads_ : 0);  // the split over the threads, our ops only
        const double cpu0 = thread_cpu_ms();
        const auto t0 = std::chrono::steady_clock::now();
        const ggml_status status = ggml_backend_graph_compute(backend_, one);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const double cpu_ms = thread_cpu_ms() - cpu0;
        if (status != GGML_STATUS_SUCCESS) return status;
        const auto add = [&](NodeTime & t) {
            t.ms += ms;
            t.cpu_ms += cpu_ms;
            t.count += 1;
            if (given == 1 && active_threads_ > 1) t.one_thread += 1;
            if (!probe.armed()) return;
            const std::vector<double> & shares = probe.thread_ms();
            if (t.thread_ms.size() < shares.size()) t.thread_ms.resize(shares.size(), 0.0);
            for (size_t k = 0; k < shares.size(); ++k) t.thread_ms[k] += shares[k];
            t.busiest_ms += *std::max_element(shares.begin(), shares.end());
            t.measured += 1;
        };
        add(profile.by_op[op_label(node)]);
        const std::string named = part_of ? part_of(i) : std::string();
        add(profile.by_part[part_label(node, named.empty() ? std::string("other ops, ") + graph_label : named + ": " + op_label(node))]);
    }
    return GGML_STATUS_SUCCESS;
}

std::vector<std::string> ComputeBackend::compute(ggml_cgraph * graph, const std::function<void()> & set_inputs, const std::atomic<bool> * abort,
                                                 EncoderProfile * profile, const char * graph_label) {
    abort_flag_ = abort;
    struct ResetFlag {
        const std::atomic<bool> ** slot;
        ~ResetFlag() { *slot = nullptr; }
    } reset{&abort_flag_};
    if (abort != nullptr && abort->load()) throw Error(ErrorCode::Aborted, "transcription cancelled");

    std::vector<std::string> ran;
    enum ggml_status status = GGML_STATUS_SUCCESS;
    device_work("running the encoder", [&] {
        if (!always_schedule_ && device_runs_whole_graph(graph)) {
            if (gallocr_ == nullptr) gallocr_ = ggml_gallocr_new(buffer_type());
            if (!ggml_gallocr_alloc_graph(gallocr_, graph)) {
                throw Error(ErrorCode::OutOfMemory, "not enough memory on " + device_name() + " for the compute buffers of this audio length");
            }
            set_inputs();
            status = profile != nullptr ? compute_profiled(graph, *profile, graph_label) : ggml_backend_graph_compute(backend_, graph);
            ran.push_back(device_name());
        } else {
            if (sched_ == nullptr) {
                // The CPU comes last: ggml's scheduler falls back to it for what the device cannot run.
                ggml_backend_t backends[2] = {backend_, cpu_backend_};
                const int n = backend_ == cpu_backend_ ? 1 : 2;
                sched_ = ggml_backend_sched_new(n == 1 ? &cpu_backend_ : backends, nullptr, n, max_graph_nodes_, false, false);
            }
            ggml_backend_sched_reset(sched_);
            if (!hooks_.cpu_ops.empty()) {
                // Between the reset and the split: the placement the scheduler gives an op the device lacks.
                const int n = ggml_graph_n_nodes(graph);
                for (int i = 0; i < n; ++i) {
                    ggml_tensor * node = ggml_graph_node(graph, i);
                    if (hooks_.pins_to_cpu(node)) ggml_backend_sched_set_tensor_backend(sched_, node, cpu_backend_);
                }
            }
            if (!ggml_backend_sched_alloc_graph(sched_, graph)) {
                throw Error(ErrorCode::OutOfMemory, "not enough memory on " + device_name() + " for the compute buffers of this audio length");
            }
            set_inputs();
            status = ggml_backend_sched_graph_compute(sched_, graph);
            std::set<ggml_backend_t> used;
            const int n = ggml_graph_n_nodes(graph);
            for (int i = 0; i < n; ++i) {
                if (ggml_backend_t b = ggml_backend_sched_get_tensor_backend(sched_, ggml_graph_node(graph, i))) used.insert(b);
            }
            for (ggml_backend_t b : {backend_, cpu_backend_}) {
                const std::string name = ggml_backend_dev_name(ggml_backend_get_device(b));
                if (used.count(b) && std::find(ran.begin(), ran.end(), name) == ran.end()) ran.push_back(name);
            }
        }
    });
    // PARAKEET_DEVICE_FAULT=compute: the device's work is reported as failed, as a lost device's would be.
    if (device_ != cpu_device_ && status == GGML_STATUS_SUCCESS && DeviceTestHooks::compute_fault_now()) status = GGML_STATUS_FAILED;
    switch (status) {
        case GGML_STATUS_SUCCESS: return ran;
        case GGML_STATUS_ABORTED: throw Error(ErrorCode::Aborted, "transcription cancelled");
        case GGML_STATUS_ALLOC_FAILED: throw Error(ErrorCode::OutOfMemory, "out of memory while computing on " + device_name());
        default: throw Error(ErrorCode::DeviceUnavailable, "the compute device " + device_name() + " failed while running the encoder");
    }
}

void ComputeBackend::device_work(const char * what, const std::function<void()> & work) const {
    try {
        work();
        if (device_ != cpu_device_ && DeviceTestHooks::compute_throws_now()) throw std::runtime_error("simulated: PARAKEET_DEVICE_FAULT=compute-throw");
    } catch (const Error &) {
        throw;
    } catch (const std::bad_alloc &) {
        throw;  // host memory: the addon says OUT_OF_MEMORY, whatever the device
    } catch (const std::exception & e) {
        if (device_ == cpu_device_) throw;
        throw Error(ErrorCode::DeviceUnavailable, "the compute device " + device_name() + " failed while " + what + " (" + e.what() + ")");
    }
}

}  // namespace parakeet
