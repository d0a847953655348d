// How a profiled graph node's work is split over ggml's CPU threads (TranscribeParams::profile;
// bench:threads). Two facts per node, robust to other processes on the machine:
//  - ThreadWorkProbe: for the engine's own ops (ggml custom ops), each thread's CPU time inside its
//    own share of the node (CLOCK_THREAD_CPUTIME_ID around the op's body), so the barrier wait after
//    it — where a thread that finished early spins — is not counted. One thread alone doing the work
//    is a serial op; max/mean over the threads is the imbalance; the sum is the work, which should not
//    grow with the thread count (what grows is contention: memory bandwidth, shared cores).
//  - threads_given: how many threads ggml hands a node (its n_tasks rule; 1 for some of its ops).
// Only the profiled path (ComputeBackend::compute_profiled) uses this: an unprofiled run is untouched.
#pragma once

#include <vector>

#include "ggml.h"

namespace parakeet {

/**
 * While alive, a custom-op node runs through a timing trampoline that records each thread's CPU time
 * in its share; the destructor puts the node's own function back. A node that is not a custom op, or
 * a ggml whose custom-op parameters this build cannot read (checked once), is left alone (armed() false).
 */
class ThreadWorkProbe {
public:
    /** `max_threads`: the CPU threads active for the node (0: not a CPU graph, nothing is touched). */
    ThreadWorkProbe(ggml_tensor * node, int max_threads);
    ~ThreadWorkProbe();
    ThreadWorkProbe(const ThreadWorkProbe &) = delete;
    ThreadWorkProbe & operator=(const ThreadWorkProbe &) = delete;

    bool armed() const { return armed_; }
    /** After the node computed: CPU ms of each thread's share, by ggml's thread index (0 = the calling thread). */
    const std::vector<double> & thread_ms() const { return thread_ms_; }

private:
    static void timed_body(ggml_tensor * dst, int ith, int nth, void * probe);

    ggml_tensor * node_;
    ggml_custom_op_t body_ = nullptr;
    void * userdata_ = nullptr;
    std::vector<double> thread_ms_;
    bool armed_ = false;
};

/**
 * Threads ggml gives a graph of one node when `active` are running (ggml_graph_plan's n_threads: the
 * node's n_tasks, capped); 0 where this build cannot ask (the loadable-backend build).
 */
int threads_given(ggml_cgraph * one_node_graph, int active);

}  // namespace parakeet
