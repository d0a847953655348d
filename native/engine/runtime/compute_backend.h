// One model's compute device: backend objects, thread count, abort hook, and
// graph execution. A graph runs through a persistent ggml_gallocr on the
// device when the device has a kernel for every node, and through
// ggml_backend_sched over {device, CPU} only when it does not.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <functional>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "device_test_hooks.h"
#include "ggml-backend.h"
#include "parakeet/parakeet.h"

namespace parakeet {

ggml_backend_dev_t find_device(const std::string & name);

class ComputeBackend {
public:
    /**
     * Initializes the selected device (falls back to the CPU, recorded in
     * `selection`, when it cannot start). `always_schedule` routes every graph
     * through ggml_backend_sched even when the device could run it alone
     * (diagnostics, and the tests of that path on machines without a GPU).
     */
    ComputeBackend(DeviceSelection & selection, int n_threads, bool always_schedule = false);
    ~ComputeBackend();
    ComputeBackend(const ComputeBackend &) = delete;
    ComputeBackend & operator=(const ComputeBackend &) = delete;

    bool is_cpu() const { return device_ == cpu_device_; }
    ggml_backend_dev_t device() const { return device_; }
    ggml_backend_t backend() const { return backend_; }
    ggml_backend_t cpu_backend() const { return cpu_backend_; }
    ggml_backend_buffer_type_t buffer_type() const { return ggml_backend_get_default_buffer_type(backend_); }
    /** The CPU's extra buffer types (e.g. CPU_REPACK), usable for weights when the device is the CPU. */
    std::vector<ggml_backend_buffer_type_t> cpu_extra_buffer_types() const;
    int threads() const { return n_threads_; }
    /** CPU threads for the next graphs, 1 … threads() (adaptive thread counts). */
    void set_active_threads(int n);
    int active_threads() const { return active_threads_; }
    std::string device_name() const;

    /**
     * Allocates `graph`, lets `set_inputs` upload the inputs, and computes it.
     * Returns the names of the devices that executed nodes.
     * Throws Error(Aborted / OutOfMemory / DeviceUnavailable).
     */
    std::vector<std::string> compute(ggml_cgraph * graph, const std::function<void()> & set_inputs, const std::atomic<bool> * abort,
                                     EncoderProfile * profile = nullptr, const char * graph_label = "graph");

    /** The largest graph (in nodes) this backend will be asked to run; sizes the scheduler. */
    void reserve_graph_nodes(size_t nodes) { max_graph_nodes_ = std::max(max_graph_nodes_, nodes); }

    /** Bytes of the compute (activation) buffers currently reserved. */
    size_t compute_buffer_bytes() const;

    /**
     * Runs an allocated graph one node at a time, timing each into `profile` (by op; by part: matmuls by
     * weight role, other nodes by `part_of(node index)` when given and not empty, else by `graph_label`).
     */
    ggml_status compute_profiled(ggml_cgraph * graph, EncoderProfile & profile, const char * graph_label,
                                 const std::function<std::string(int)> & part_of = nullptr);

    /**
     * Runs `work` (graph computes, copies to and from the device; `what` names it for the message): an exception
     * a GPU backend throws from its driver (ggml-vulkan's vk::DeviceLostError when the device is lost) becomes
     * Error(DeviceUnavailable) naming the device — what the app fails over to the CPU on — instead of an internal
     * error retried on the same device. Our own Errors, host out-of-memory and everything on the CPU pass through.
     */
    void device_work(const char * what, const std::function<void()> & work) const;

    /** PARAKEET_DEVICE_FAULT=weights on this (non-CPU) device: placing the weights finds no room (device_test_hooks.h). */
    bool simulated_weights_fault() const { return hooks_.weights_fault; }

private:
    bool device_runs_whole_graph(ggml_cgraph * graph) const;

    ggml_backend_dev_t device_ = nullptr;
    ggml_backend_dev_t cpu_device_ = nullptr;
    ggml_backend_t backend_ = nullptr;
    ggml_backend_t cpu_backend_ = nullptr;  // == backend_ when the device is the CPU
    int n_threads_ = 1;
    int active_threads_ = 1;
    struct ggml_threadpool * threadpool_ = nullptr;    // persistent CPU workers (static builds)
    struct ggml_threadpool * profile_pool_ = nullptr;  // the same with polling on, for profiled runs (made on first use)
    ggml_gallocr_t gallocr_ = nullptr;
    ggml_backend_sched_t sched_ = nullptr;
    const std::atomic<bool> * abort_flag_ = nullptr;
    bool always_schedule_ = false;
    size_t max_graph_nodes_ = 4096;
    DeviceTestHooks hooks_;  // empty on the CPU (device_test_hooks.h)
};

}  // namespace parakeet
