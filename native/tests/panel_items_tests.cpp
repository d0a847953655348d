// PanelItems (block_chunks.h): a GEMM node's (span, panel) items shared among its threads through
// the node's op_params. Every item is taken exactly once per run, whatever the thread count, the
// count is back at zero for the next run of the same node, and neighbouring panels go out in groups.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "block_chunks.h"
#include "check.h"

using namespace parakeet;

TEST(shared_panel_items_are_each_taken_once_per_run) {
    ggml_tensor node;
    std::memset(&node, 0, sizeof(node));
    const int32_t ggml_params[6] = {11, 22, 33, 44, 55, 66};  // ggml's custom-op parameters stay untouched
    std::memcpy(node.op_params, ggml_params, sizeof(ggml_params));
    for (int run = 0; run < 200; ++run) {
        const int nth = 1 + run % 4;
        const int64_t panels = 1 + run % 37, spans = 1 + run % 3;
        std::vector<std::atomic<int>> taken(size_t(panels * spans));
        std::vector<std::thread> threads;
        for (int ith = 0; ith < nth; ++ith) {
            threads.emplace_back([&] {
                PanelItems items = PanelItems::shared(&node, panels, nth);
                items.start(spans);
                for (int64_t s = 0, p = 0; items.next(s, p);) {
                    CHECK(s >= 0 && s < spans && p >= 0 && p < panels);
                    taken[size_t(s * panels + p)]++;
                    std::this_thread::yield();
                }
                items.finish();
            });
        }
        for (std::thread & t : threads) t.join();
        CHECK(std::all_of(taken.begin(), taken.end(), [](const std::atomic<int> & n) { return n.load() == 1; }));
    }
    CHECK(std::memcmp(node.op_params, ggml_params, sizeof(ggml_params)) == 0);
    for (size_t i = sizeof(ggml_params) / sizeof(int32_t); i < sizeof(node.op_params) / sizeof(int32_t); ++i) CHECK_EQ(node.op_params[i], 0);
    // Neighbouring panels go to one thread together (groups of 4 here: 32 panels, 2 threads), so the
    // threads' stretches of each output row are not interleaved 128 bytes at a time.
    {
        const int nth = 2;
        const int64_t panels = 32;
        std::vector<std::vector<int64_t>> order(nth);
        std::vector<std::thread> threads;
        for (int ith = 0; ith < nth; ++ith) {
            threads.emplace_back([&, ith] {
                PanelItems items = PanelItems::shared(&node, panels, nth);
                items.start(1);
                for (int64_t s = 0, p = 0; items.next(s, p);) {
                    int64_t predicted = -1;
                    if (p % 4 != 3) CHECK(items.upcoming_panel(predicted) && predicted == p + 1);  // the group's next panel
                    order[size_t(ith)].push_back(p);
                    std::this_thread::yield();
                }
                items.finish();
            });
        }
        for (std::thread & t : threads) t.join();
        CHECK_EQ(int(order[0].size() + order[1].size()), int(panels));
        for (const std::vector<int64_t> & mine : order) {
            CHECK(mine.size() % 4 == 0);
            for (size_t i = 0; i < mine.size(); ++i) CHECK(i % 4 == 0 ? mine[i] % 4 == 0 : mine[i] == mine[i - 1] + 1);
        }
    }
    // Groups rounded up to a multiple (the Q8 rows' per-block numbers, 16 panels to a line): 128
    // panels on 2 threads go out in aligned groups of 16, not 8; fewer panels than the multiple, one
    // group. One thread takes every item here; a group ends where the next panel is not predicted.
    for (const auto & [panels, nth, multiple, group] : {std::array<int64_t, 4>{128, 2, 16, 16}, std::array<int64_t, 4>{8, 2, 16, 8},
                                                        std::array<int64_t, 4>{40, 3, 16, 16}, std::array<int64_t, 4>{128, 2, 1, 8}}) {
        ggml_tensor fresh;
        std::memset(&fresh, 0, sizeof(fresh));
        PanelItems items = PanelItems::shared(&fresh, panels, int(nth), multiple);
        items.start(1);
        int64_t expected = 0;
        for (int64_t s = 0, p = 0; items.next(s, p); ++expected) {
            CHECK_EQ(p, expected);
            int64_t predicted = -1;
            const bool group_goes_on = items.upcoming_panel(predicted) && predicted == p + 1;
            CHECK_EQ(group_goes_on, (p + 1) % group != 0 && p + 1 < panels);
        }
        CHECK_EQ(expected, panels);
    }
    // A fixed range: its own panels, span by span, in order.
    PanelItems range = PanelItems::range(3, 6);
    range.start(2);
    std::vector<int64_t> order;
    for (int64_t s = 0, p = 0; range.next(s, p);) order.push_back(s * 10 + p);
    range.finish();
    CHECK(order == std::vector<int64_t>({3, 4, 5, 13, 14, 15}));
}
