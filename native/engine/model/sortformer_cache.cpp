#include "sortformer_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace parakeet {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kPosInf = std::numeric_limits<float>::infinity();

/** NeMo _get_silence_profile: running mean of the embeddings whose activities sum below sil_threshold. */
void update_silence_profile(const SortformerHparams & sp, SortformerCache & c, const float * embs, const float * preds, int frames) {
    std::vector<double> sum(size_t(c.dim), 0.0);
    long long count = 0;
    for (int t = 0; t < frames; ++t) {
        float total = 0.0f;
        for (int s = 0; s < c.n_speakers; ++s) total += preds[size_t(t) * size_t(c.n_speakers) + size_t(s)];
        if (!(total < sp.sil_threshold)) continue;
        ++count;
        for (int i = 0; i < c.dim; ++i) sum[size_t(i)] += embs[size_t(t) * size_t(c.dim) + size_t(i)];
    }
    if (count == 0) return;
    const long long updated = c.n_sil_frames + count;
    for (int i = 0; i < c.dim; ++i) {
        c.mean_sil_emb[size_t(i)] = float((double(c.mean_sil_emb[size_t(i)]) * double(c.n_sil_frames) + sum[size_t(i)]) / double(updated));
    }
    c.n_sil_frames = updated;
}

/** Indices of the n largest of values[0..count) (ties: the lower index first), as torch.topk's set. */
std::vector<int> top_indices(const std::vector<float> & values, int n) {
    std::vector<int> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    n = std::min<int>(n, int(order.size()));
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [&](int a, int b) { return values[size_t(a)] > values[size_t(b)] || (values[size_t(a)] == values[size_t(b)] && a < b); });
    order.resize(size_t(n));
    return order;
}

/** NeMo _boost_topk_scores: each speaker's n best frames gain −scale·log(0.5) (−inf stays −inf). */
void boost_top_scores(std::vector<float> & scores, int frames, int S, int n, float scale) {
    if (n <= 0) return;
    std::vector<float> column(static_cast<size_t>(frames));
    for (int s = 0; s < S; ++s) {
        for (int t = 0; t < frames; ++t) column[size_t(t)] = scores[size_t(t) * size_t(S) + size_t(s)];
        for (int t : top_indices(column, n)) scores[size_t(t) * size_t(S) + size_t(s)] -= scale * std::log(0.5f);
    }
}

/**
 * NeMo _compress_spkcache: keeps the spkcache_len frames with the best per-speaker scores (a frame can be
 * kept once per speaker), ordered by speaker and then by time, with spkcache_sil_frames_per_spk silence
 * frames (the mean silence embedding, zero activities) closing each speaker's block.
 */
void compress(const SortformerHparams & sp, const std::vector<float> & learnable_sil_emb, SortformerCache & c) {
    const int S = c.n_speakers, n = c.spkcache_frames, D = c.dim;
    const int per_spk = sp.spkcache_len / S - sp.spkcache_sil_frames_per_spk;
    const int strong = int(std::floor(double(per_spk) * double(sp.strong_boost_rate)));
    const int weak = int(std::floor(double(per_spk) * double(sp.weak_boost_rate)));
    const int min_pos = int(std::floor(double(per_spk) * double(sp.min_pos_scores_rate)));
    const std::vector<float> & preds = c.spkcache_preds;

    // _get_log_pred_scores: log p − log(1−p) + Σ_s log(1−p_s) − log 0.5, probabilities floored at pred_score_threshold.
    std::vector<float> scores(size_t(n) * size_t(S));
    for (int t = 0; t < n; ++t) {
        float log_1_sum = 0.0f;
        for (int s = 0; s < S; ++s) log_1_sum += std::log(std::max(1.0f - preds[size_t(t) * size_t(S) + size_t(s)], sp.pred_score_threshold));
        for (int s = 0; s < S; ++s) {
            const float p = preds[size_t(t) * size_t(S) + size_t(s)];
            scores[size_t(t) * size_t(S) + size_t(s)] = std::log(std::max(p, sp.pred_score_threshold)) -
                                                        std::log(std::max(1.0f - p, sp.pred_score_threshold)) + log_1_sum - std::log(0.5f);
        }
    }
    // _disable_low_scores: non-speech (p ≤ 0.5) is out; so is overlap (score ≤ 0) for a speaker with min_pos positive frames.
    for (int s = 0; s < S; ++s) {
        int positive = 0;
        for (int t = 0; t < n; ++t) {
            float & v = scores[size_t(t) * size_t(S) + size_t(s)];
            if (!(preds[size_t(t) * size_t(S) + size_t(s)] > 0.5f)) v = kNegInf;
            if (v > 0.0f) ++positive;
        }
        if (positive < min_pos) continue;
        for (int t = 0; t < n; ++t) {
            float & v = scores[size_t(t) * size_t(S) + size_t(s)];
            if (!(v > 0.0f) && preds[size_t(t) * size_t(S) + size_t(s)] > 0.5f) v = kNegInf;
        }
    }
    if (sp.scores_boost_latest > 0.0f) {
        for (int t = sp.spkcache_len; t < n; ++t) {
            for (int s = 0; s < S; ++s) scores[size_t(t) * size_t(S) + size_t(s)] += sp.scores_boost_latest;
        }
    }
    boost_top_scores(scores, n, S, strong, 2.0f);
    boost_top_scores(scores, n, S, weak, 1.0f);

    // Silence frames at the end of each speaker's block (score +inf: always kept), then _get_topk_indices over
    // the speaker-major flattening; −inf picks and silence frames become the silence embedding.
    const int padded = n + sp.spkcache_sil_frames_per_spk;
    std::vector<float> flat(size_t(padded) * size_t(S));
    for (int s = 0; s < S; ++s) {
        for (int t = 0; t < padded; ++t) flat[size_t(s) * size_t(padded) + size_t(t)] = t < n ? scores[size_t(t) * size_t(S) + size_t(s)] : kPosInf;
    }
    std::vector<int> picked = top_indices(flat, sp.spkcache_len);
    const int disabled_mark = std::numeric_limits<int>::max();
    for (int & i : picked) {
        if (flat[size_t(i)] == kNegInf) i = disabled_mark;  // NeMo's max_index placeholder: sorts last
    }
    std::sort(picked.begin(), picked.end());
    const std::vector<float> & sil = sp.use_learnable_sil_emb ? learnable_sil_emb : c.mean_sil_emb;
    std::vector<float> & embs = c.spare_rows;
    embs.resize(size_t(sp.spkcache_len) * size_t(D));
    std::vector<float> & kept_preds = c.spare_preds;
    kept_preds.assign(size_t(sp.spkcache_len) * size_t(S), 0.0f);
    for (int k = 0; k < sp.spkcache_len; ++k) {
        const int frame = picked[size_t(k)] == disabled_mark ? -1 : picked[size_t(k)] % padded;
        float * row = embs.data() + size_t(k) * size_t(D);
        if (frame < 0 || frame >= n) {
            std::copy(sil.begin(), sil.end(), row);
            continue;
        }
        std::copy(c.spkcache.begin() + std::ptrdiff_t(size_t(frame) * size_t(D)), c.spkcache.begin() + std::ptrdiff_t(size_t(frame + 1) * size_t(D)),
                  row);
        std::copy(preds.begin() + std::ptrdiff_t(size_t(frame) * size_t(S)), preds.begin() + std::ptrdiff_t(size_t(frame + 1) * size_t(S)),
                  kept_preds.begin() + std::ptrdiff_t(size_t(k) * size_t(S)));
    }
    c.spkcache.swap(embs);
    c.spkcache_preds.swap(kept_preds);
    c.spkcache_frames = sp.spkcache_len;
}

}  // namespace

SortformerCache::SortformerCache(int dim_, int n_speakers_) : dim(dim_), n_speakers(n_speakers_), mean_sil_emb(size_t(dim_), 0.0f) {}

void SortformerCache::prefix(std::vector<float> & rows) const {
    rows.assign(spkcache.begin(), spkcache.begin() + std::ptrdiff_t(size_t(spkcache_frames) * size_t(dim)));
    rows.insert(rows.end(), fifo.begin(), fifo.begin() + std::ptrdiff_t(size_t(fifo_frames) * size_t(dim)));
}

std::vector<float> sortformer_streaming_update(const SortformerHparams & sp, const std::vector<float> & learnable_sil_emb, SortformerCache & c,
                                               const std::vector<float> & chunk, int chunk_rows, int lc, int rc, const std::vector<float> & preds) {
    const int S = c.n_speakers, D = c.dim;
    const int spkcache_len = c.spkcache_frames, fifo_len = c.fifo_frames;
    const int chunk_len = std::max(0, chunk_rows - lc - rc);
    auto pred_rows = [&](int first, int count) {
        return std::vector<float>(preds.begin() + std::ptrdiff_t(size_t(first) * size_t(S)),
                                  preds.begin() + std::ptrdiff_t(size_t(first + count) * size_t(S)));
    };
    std::vector<float> fifo_preds = pred_rows(spkcache_len, fifo_len);
    const std::vector<float> chunk_preds = pred_rows(spkcache_len + fifo_len + lc, chunk_len);

    c.fifo.resize(size_t(fifo_len) * size_t(D));
    c.fifo.insert(c.fifo.end(), chunk.begin() + std::ptrdiff_t(size_t(lc) * size_t(D)),
                  chunk.begin() + std::ptrdiff_t(size_t(lc + chunk_len) * size_t(D)));
    fifo_preds.insert(fifo_preds.end(), chunk_preds.begin(), chunk_preds.end());
    c.fifo_frames = fifo_len + chunk_len;

    if (fifo_len + chunk_len > sp.fifo_len) {
        int pop = sp.spkcache_update_period;
        pop = std::max(pop, chunk_len - sp.fifo_len + fifo_len);
        pop = std::min(pop, fifo_len + chunk_len);
        // The popped frames go from the FIFO's front into the cache without a copy of their own (fifo and
        // spkcache are separate vectors, so the range stays valid until the erase).
        const auto pop_end = c.fifo.begin() + std::ptrdiff_t(size_t(pop) * size_t(D));
        if (!sp.use_learnable_sil_emb) update_silence_profile(sp, c, c.fifo.data(), fifo_preds.data(), pop);
        c.spkcache.resize(size_t(spkcache_len) * size_t(D));
        c.spkcache.insert(c.spkcache.end(), c.fifo.begin(), pop_end);
        c.fifo.erase(c.fifo.begin(), pop_end);
        c.fifo_frames -= pop;

        if (!c.compressed) c.spkcache_preds = pred_rows(0, spkcache_len);  // before the first compression: this chunk's view of the cache
        c.spkcache_preds.resize(size_t(spkcache_len) * size_t(S));
        c.spkcache_preds.insert(c.spkcache_preds.end(), fifo_preds.begin(), fifo_preds.begin() + std::ptrdiff_t(size_t(pop) * size_t(S)));
        c.spkcache_frames = spkcache_len + pop;
        if (c.spkcache_frames > sp.spkcache_len) {
            compress(sp, learnable_sil_emb, c);
            c.compressed = true;
        }
    }
    return chunk_preds;
}

}  // namespace parakeet
