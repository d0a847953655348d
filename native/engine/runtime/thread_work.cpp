#include "thread_work.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "thread_clock.h"

#ifndef PARAKEET_BACKEND_DL
#include "ggml-cpu.h"
#endif

namespace parakeet {
namespace {

// ggml keeps a custom op's function, task count and user pointer in the node's op_params as its
// internal struct ggml_custom_op_params (ggml-impl.h, written by ggml_custom_4d). This mirror is
// checked once against a node ggml_custom_4d made (custom_params_readable) before any node is
// touched, so a ggml whose layout moved profiles without the per-thread split instead of calling
// through a wrong pointer.
struct CustomOpParams {
    ggml_custom_op_t fun;
    int n_tasks;
    void * userdata;
};
static_assert(sizeof(CustomOpParams) <= GGML_MAX_OP_PARAMS, "a custom op's parameters live in op_params");

CustomOpParams read_params(const ggml_tensor * node) {
    CustomOpParams p;
    std::memcpy(&p, node->op_params, sizeof(p));
    return p;
}

void write_params(ggml_tensor * node, const CustomOpParams & p) { std::memcpy(node->op_params, &p, sizeof(p)); }

void layout_marker(ggml_tensor *, int, int, void *) {}

bool custom_params_readable() {
    static const bool readable = [] {
        std::vector<uint8_t> meta(4 * ggml_tensor_overhead());
        ggml_init_params params = {meta.size(), meta.data(), true};
        ggml_context * ctx = ggml_init(params);
        if (ctx == nullptr) return false;
        int sentinel = 0;
        ggml_tensor * arg = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
        ggml_tensor * node = ggml_custom_4d(ctx, GGML_TYPE_F32, 1, 1, 1, 1, &arg, 1, layout_marker, 3, &sentinel);
        const CustomOpParams p = read_params(node);
        ggml_free(ctx);
        return p.fun == layout_marker && p.n_tasks == 3 && p.userdata == &sentinel;
    }();
    return readable;
}

}  // namespace

ThreadWorkProbe::ThreadWorkProbe(ggml_tensor * node, int max_threads) : node_(node) {
    if (max_threads < 1 || node->op != GGML_OP_CUSTOM || !custom_params_readable()) return;
    CustomOpParams p = read_params(node);
    body_ = p.fun;
    userdata_ = p.userdata;
    thread_ms_.assign(size_t(max_threads), 0.0);
    p.fun = timed_body;
    p.userdata = this;
    write_params(node, p);
    armed_ = true;
}

ThreadWorkProbe::~ThreadWorkProbe() {
    if (!armed_) return;
    CustomOpParams p = read_params(node_);
    p.fun = body_;
    p.userdata = userdata_;
    write_params(node_, p);
}

void ThreadWorkProbe::timed_body(ggml_tensor * dst, int ith, int nth, void * self) {
    auto * probe = static_cast<ThreadWorkProbe *>(self);
    const double start = thread_cpu_ms();
    probe->body_(dst, ith, nth, probe->userdata_);
    // Each thread writes its own slot; ggml's barrier at the end of the graph orders these writes
    // before the caller reads them.
    if (ith >= 0 && size_t(ith) < probe->thread_ms_.size()) probe->thread_ms_[size_t(ith)] = thread_cpu_ms() - start;
}

int threads_given(ggml_cgraph * one_node_graph, int active) {
#ifndef PARAKEET_BACKEND_DL
    return ggml_graph_plan(one_node_graph, active, nullptr).n_threads;
#else
    (void)one_node_graph, (void)active;
    return 0;
#endif
}

}  // namespace parakeet
