// SPDX-License-Identifier: BSD-3-Clause
// The CPU's reductions by key (sum_by_key, stats_by_key) without sorting the values into bin order.
//
// Bin b's result is Op over bin b's values in index order, in the canonical order of an array of their number: the
// value at position p of its bin (p counted from 0 in index order) belongs to leaf p / L and to lane p % W. So a bin
// can be reduced while its values stream by in index order, if it keeps the count of values it has taken, the W lane
// states of its current leaf and, once it has finished a leaf, a subtree_stack of its leaves: the value at position p
// goes to lane p % W (starting from the identity when it is the lane's first of the leaf, p % L < W); the leaf's last
// value (p % L == L - 1) folds the lanes (order::fold_lanes) and pushes the leaf's node onto the stack; at the end the
// ragged last leaf is folded and pushed the same way, and the stack's root is finalized. These are the operations of
// the canonical order over the bin's values, and which other values stream by in between changes none of them.
//
// Why not the stable counting sort into bin order (lib/api/group_by_key.hpp, which exact mode keeps): its scatter
// writes to one stream per bin, and with 2^16 bins every value is a cache and TLB miss (2^24 floats into 2^16 bins
// ran at 0.15x a plain scatter loop). Streaming the values through the bins' lane states directly has the same
// problem at another place: 2^16 bins of 128 float lanes are 32 MiB of states. So the values are first partitioned
// by the high bits of their key (pass 1: at most max_partitions streams, each a chain of blocks of 1024 values and
// their bins), into partitions of 2^shift bins whose lane states fit in the L2 cache (state_budget_bytes); then each
// partition is streamed by one thread through its bins' states (pass 2), which stay in L2. Bins whose states fit
// (direct_budget_bytes for one thread) skip pass 1.
//
// Threads: in pass 1 each thread partitions a contiguous part of the input and writes its values of a partition
// into a chain of blocks of its own, in index order; pass 2 reads a partition's chains part by part, so every bin
// takes its values in index order whatever the thread count. Threads decide only who partitions which part and who
// streams which partition, never an operation.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include <omp.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "by_key.hpp"
#include "core/operators.hpp"
#include "core/scratch_array.hpp"
#include "cpu_backend.hpp"
#include "detred/order.hpp"
#include "prefetch.hpp"

namespace detred::cpu {
namespace {

/// The lane states a partition's bins touch, at most: a partition is streamed from L2 (1 MiB a core on the
/// development VM, 256 KiB to 2 MiB elsewhere), and its values pass through the cache beside them.
constexpr std::uint64_t state_budget_bytes = std::uint64_t{384} << 10;
/// One thread streams the input itself while the bins' lane states take at most this many bytes: past L2 they come
/// from L3, which still costs less than pass 1 (2^24 floats into 2^12 bins, 2.2 MiB of states: 34 ms, partitioned
/// 41 ms; 2^13 bins: 34 and 39 ms; 2^14 bins: 65 and 40 ms).
constexpr std::uint64_t direct_budget_bytes = std::uint64_t{4} << 20;
/// Pass 1 writes to one block per partition at once: beyond about a thousand streams, the blocks being filled no
/// longer fit in L1 and L2 (and each stream wants its own TLB entry).
constexpr std::uint64_t max_partitions = 1024;
/// A part of the input (pass 1) holds at least this many values: a fork and join costs microseconds.
constexpr std::uint64_t min_part = std::uint64_t{1} << 15;
constexpr std::uint64_t no_block = ~std::uint64_t{0};

/// Bins [q << shift, (q + 1) << shift) form partition q.
struct plan {
  int shift = 0;
  std::uint64_t partitions = 1;
  int parts = 1;  ///< threads of pass 1, each partitioning a contiguous part of the input
  int team = 1;   ///< threads of pass 2, which take whole partitions
};

template <class Op>
plan plan_for(std::uint64_t n, std::uint64_t bins, int threads) {
  constexpr std::uint64_t W = order::lanes<typename Op::value>;
  // A bin touches min(W, its values) lanes of its current leaf (and a count): estimated from the mean bin, in whole
  // cache lines.
  const std::uint64_t mean = std::max<std::uint64_t>(1, n / std::max<std::uint64_t>(bins, 1));
  const std::uint64_t touched = (std::min(W, mean) * sizeof(typename Op::state) + 63) / 64 * 64 + 16;
  std::uint64_t per_partition = std::bit_floor(std::max<std::uint64_t>(1, state_budget_bytes / touched));
  const auto partitions = [&](std::uint64_t size) { return (bins + size - 1) / size; };
  plan p;
  // Bins that fit in one partition are streamed straight from the input by one thread, unless more than two threads
  // can share the work: pass 1 costs about what pass 2 does (2^24 floats, 2^8 bins: 1.1 and 1.25 ns a value on one
  // thread), so two threads only break even.
  if (bins * touched <= (threads == 1 ? direct_budget_bytes : state_budget_bytes) && threads <= 2) return p;
  // Four partitions per thread at least, where there are bins enough, so that threads balance; max_partitions at
  // most.
  while (threads > 1 && per_partition > 1 && partitions(per_partition) < 4 * static_cast<std::uint64_t>(threads)) {
    per_partition /= 2;
  }
  while (partitions(per_partition) > max_partitions) per_partition *= 2;
  if (partitions(per_partition) == 1) return p;  // a single bin, or a few, whatever the threads
  p.shift = std::countr_zero(per_partition);
  p.partitions = partitions(per_partition);
  p.parts = static_cast<int>(std::clamp<std::uint64_t>(n / min_part, 1, static_cast<std::uint64_t>(threads)));
  p.team = static_cast<int>(std::min<std::uint64_t>(p.partitions, static_cast<std::uint64_t>(threads)));
  return p;
}

/// The bins of one partition, streamed: per bin, the count of values taken, the W lane states of its current leaf
/// and, from its first full leaf on, a subtree_stack of its leaves. Lanes hold the identity until they take a value,
/// and are set back to it when their leaf is folded, so that a value is always accumulate(lane, x): a test for a
/// lane's first value of a leaf is a branch that 2^24 floats into 2^16 bins (two values a lane) mispredict half the
/// time (the call took 64 ms with it on one thread, 49 ms without).
template <class Op>
class bin_streams {
 public:
  using S = typename Op::state;
  using N = order::node_of<Op>;
  static constexpr std::uint64_t W = order::lanes<typename Op::value>;
  static constexpr std::uint64_t L = order::leaf_size<typename Op::value>;

  /// For partitions of up to `bins` bins and streams of up to `n` values: at most n / L of the bins finish a leaf,
  /// and room for their stacks is reserved here, so that streaming allocates nothing (and so throws nothing inside
  /// a parallel region).
  bin_streams(std::uint64_t bins, std::uint64_t n)
      : lanes_(new S[bins * stride]), counts_(new std::uint64_t[bins]), stack_of_(new std::uint32_t[bins]) {
    std::fill(lanes_.get(), lanes_.get() + bins * stride, identity());
    stacks_.reserve(std::min(bins, n / L));
  }

  /// Bins [0, bins) empty (their lanes hold the identity already: finish() leaves them so).
  void reset(std::uint64_t bins) {
    std::fill(counts_.get(), counts_.get() + bins, std::uint64_t{0});
    std::fill(stack_of_.get(), stack_of_.get() + bins, no_stack);
    stacks_.clear();
  }

  /// Bin bin(k) takes value(k), for k < count, in that order.
  template <class Bin, class Value>
  void add(std::uint64_t count, Bin&& bin, Value&& value) {
    S* const lanes = lanes_.get();
    std::uint64_t* const counts = counts_.get();
    for (std::uint64_t k = 0; k < count; ++k) {
      const std::uint64_t b = bin(k);
      const std::uint64_t at = counts[b]++ % L;
      S& lane = lanes[b * stride + at % W];
      lane = Op::accumulate(lane, value(k));
      if (at == L - 1) [[unlikely]] {
        push(b, fold(b, W));
      }
    }
  }

  /// Bin b's result; its lanes hold the identity again.
  typename Op::result finish(std::uint64_t b) {
    const std::uint64_t count = counts_[b];
    if (count == 0) return order::finish<Op>(order::empty_node<Op>(), 0);
    const std::uint64_t ragged = count % L;
    if (ragged == 0) return order::finish<Op>(stacks_[stack_of_[b]].root(), count);
    const N leaf = fold(b, ragged < W ? ragged : W);
    if (stack_of_[b] == no_stack) return order::finish<Op>(leaf, count);
    order::subtree_stack<Op>& stack = stacks_[stack_of_[b]];
    stack.push(leaf, 1);
    return order::finish<Op>(stack.root(), count);
  }

 private:
  static constexpr std::uint32_t no_stack = ~std::uint32_t{0};
  /// Bins' lanes lie a cache line more than W states apart. Bins take their values at about the same rate, so at any
  /// time most of them are at about the same lane: W states apart (512 bytes for floats), those lanes would all map
  /// to the same few sets of the L1 cache and evict each other (2^24 floats into 2^8 bins took 50 % longer with
  /// keys that visit the bins in turn).
  static constexpr std::uint64_t stride = W + (64 + sizeof(S) - 1) / sizeof(S);

  static S identity() { return Op::template identity<typename Op::value>(); }

  /// The node of bin b's current leaf, whose lanes [0, live) took values (the others hold the identity); the lanes
  /// hold the identity afterwards.
  N fold(std::uint64_t b, std::uint64_t live) {
    S* const lanes = lanes_.get() + b * stride;
    // Both write lanes below `live` only.
    if constexpr (order::neutral_identity<Op>) {
      // order::fold_live_lanes's joins, level by level: at level h, lanes [0, joined - h) take lanes [h, joined),
      // ranges that do not overlap, so that a level's joins run several lanes to a register (2^24 floats into 2^16
      // bins, where every bin folds a leaf of about two values a lane: 1 ms of the 20 ms streaming pass).
      for (std::uint64_t h = W / 2, joined = live; h >= 1; h /= 2) {
        if (joined <= h) continue;
        join_ranges(lanes, lanes + h, joined - h);
        joined = h;
      }
    } else {
      order::fold_lanes_before_identity<Op>(lanes, W, live);
    }
    const N node = order::to_node<Op>(lanes[0], 0);
    std::fill(lanes, lanes + live, identity());
    return node;
  }

  /// low[j] = Op::combine(low[j], high[j]) for j < count, the two ranges disjoint.
  static void join_ranges(S* __restrict low, const S* __restrict high, std::uint64_t count) {
    for (std::uint64_t j = 0; j < count; ++j) low[j] = Op::combine(low[j], high[j]);
  }

  void push(std::uint64_t b, const N& leaf) {
    if (stack_of_[b] == no_stack) {
      stack_of_[b] = static_cast<std::uint32_t>(stacks_.size());
      stacks_.emplace_back();
    }
    stacks_[stack_of_[b]].push(leaf, 1);
  }

  std::unique_ptr<S[]> lanes_;
  std::unique_ptr<std::uint64_t[]> counts_;
  std::unique_ptr<std::uint32_t[]> stack_of_;
  std::vector<order::subtree_stack<Op>> stacks_;
};

template <class K>
bool is_bin(K key, std::uint64_t bins) {
  return static_cast<std::uint64_t>(key) < bins;  // a negative key converts to 2^64 + key, never a bin
}

/// p rounded up to a multiple of 64.
inline unsigned char* align_up(unsigned char* p) { return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64; }

/// Copies `bytes` (a multiple of 16; both ends 16-byte aligned) from a staging buffer to pass 1's blocks, around the
/// caches where the instruction set has streaming stores: pass 2 reads the blocks only after all of pass 1.
inline void stream_out(void* to, const void* from, std::uint64_t bytes) {
#if defined(__x86_64__)
  auto* const d = static_cast<__m128i*>(to);
  const auto* const s = static_cast<const __m128i*>(from);
  for (std::uint64_t k = 0; k < bytes / 16; ++k) _mm_stream_si128(d + k, _mm_load_si128(s + k));
#else
  std::memcpy(to, from, bytes);
#endif
}

/// Orders the streaming stores before what follows (the threads' join).
inline void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

/// Pass 1's memory, kept from one call to the next (up to kept_bytes_max): a fresh block costs a page fault and the
/// kernel's zeroing of every page, which for the 128 MiB of 2^24 values took as long as pass 1 itself. The cap keeps
/// what a library holds between calls modest (docs/batched.md says so); larger calls allocate afresh.
class memory_cache {
 public:
  static constexpr std::uint64_t kept_bytes_max = std::uint64_t{256} << 20;

  scratch_array<unsigned char> take(std::uint64_t bytes) {
    {
      const std::lock_guard lock(mutex_);
      if (kept_.size() >= bytes) return std::move(kept_);
    }
    return scratch_array<unsigned char>(bytes);
  }
  void give_back(scratch_array<unsigned char>&& memory) {
    if (memory.size() > kept_bytes_max) return;
    const std::lock_guard lock(mutex_);
    if (memory.size() > kept_.size()) kept_ = std::move(memory);
  }

 private:
  std::mutex mutex_;
  scratch_array<unsigned char> kept_{0};
};

memory_cache& pass_memory() {
  static memory_cache cache;
  return cache;
}

/// reduce_by_key with pass 1, bins inside a partition held as U.
template <class Op, class K, class U>
std::uint64_t partitioned(const typename Op::input* values, const K* keys, std::uint64_t n, std::uint64_t bins,
                          typename Op::result* results, const plan& pl) {
  using T = typename Op::input;
  // Pass 1: part p partitions values [begin(p), end(p)) into chains of blocks, one chain per partition, drawing its
  // blocks in order from a range of its own, large enough for its values and one partly filled block per partition.
  // A block holds B values, then their B bins. Values go to a partition's block a cache line of bins at a time (E
  // values), staged in L1 and streamed out: a store per value into a thousand lines at once waited on each line's
  // read for ownership.
  constexpr std::uint64_t B = 1024;
  constexpr std::uint64_t E = 64 / sizeof(U);
  constexpr std::uint64_t block_size = B * (sizeof(T) + sizeof(U));
  static_assert(B % E == 0 && (E * sizeof(T)) % 64 == 0 && (B * sizeof(T)) % 64 == 0);
  const std::uint64_t P = pl.partitions;
  const int parts = pl.parts;
  const auto begin = [&](int p) { return n / static_cast<std::uint64_t>(parts) * static_cast<std::uint64_t>(p); };
  const auto end = [&](int p) { return p + 1 == parts ? n : begin(p + 1); };
  std::vector<std::uint64_t> first_block(static_cast<std::size_t>(parts) + 1, 0);
  for (int p = 0; p < parts; ++p) first_block[p + 1] = first_block[p] + (end(p) - begin(p) + B - 1) / B + P;
  scratch_array<unsigned char> memory = pass_memory().take(first_block[parts] * block_size + 64);
  unsigned char* const blocks = align_up(memory.data());
  const auto values_of = [&](std::uint64_t block) { return reinterpret_cast<T*>(blocks + block * block_size); };
  const auto bins_of = [&](std::uint64_t block) {
    return reinterpret_cast<U*>(blocks + block * block_size + B * sizeof(T));
  };
  std::vector<std::uint64_t> next(first_block[parts]);  // the block after a block in its chain
  // chain_*[p * P + q]: part p's chain of partition q: its first and last block and how full the last one is.
  std::vector<std::uint64_t> chain_first(static_cast<std::uint64_t>(parts) * P, no_block);
  std::vector<std::uint64_t> chain_last(static_cast<std::uint64_t>(parts) * P, no_block);
  std::vector<std::uint64_t> chain_fill(static_cast<std::uint64_t>(parts) * P, 0);
  std::vector<std::uint64_t> first_bad(static_cast<std::size_t>(parts), n);
  // Part p's cursors of partition q: where its next line of values goes, their bins, the end of its block's values,
  // and how many values are staged.
  std::vector<T*> value_at(static_cast<std::uint64_t>(parts) * P * 2, nullptr);
  std::vector<U*> bin_at(static_cast<std::uint64_t>(parts) * P, nullptr);
  std::vector<std::uint32_t> staged(static_cast<std::uint64_t>(parts) * P, 0);
  constexpr std::uint64_t stage_bytes = E * (sizeof(T) + sizeof(U));
  scratch_array<unsigned char> stages(static_cast<std::uint64_t>(parts) * P * stage_bytes + 64);
  const int shift = pl.shift;
  const std::uint64_t mask = (std::uint64_t{1} << shift) - 1;
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
  for (int p = 0; p < parts; ++p) {
    const std::uint64_t chains = static_cast<std::uint64_t>(p) * P;
    T** const at = value_at.data() + 2 * chains;
    T** const stop = at + P;
    U** const bin = bin_at.data() + chains;
    std::uint32_t* const fill = staged.data() + chains;
    T* const stage_values = reinterpret_cast<T*>(align_up(stages.data()) + chains * stage_bytes);
    U* const stage_bins = reinterpret_cast<U*>(stage_values + P * E);
    std::uint64_t* const first = chain_first.data() + chains;
    std::uint64_t* const last = chain_last.data() + chains;
    std::uint64_t spare = first_block[p];
    const auto room = [&](std::uint64_t q) {
      if (at[q] != stop[q]) return;
      const std::uint64_t block = spare++;
      (last[q] == no_block ? first[q] : next[last[q]]) = block;
      last[q] = block;
      at[q] = values_of(block);
      stop[q] = at[q] + B;
      bin[q] = bins_of(block);
    };
    const std::uint64_t stop_at = end(p);
    for (std::uint64_t i = begin(p); i < stop_at; ++i) {
      const K key = keys[i];
      if (!is_bin(key, bins)) [[unlikely]] {
        first_bad[p] = i;
        break;
      }
      const std::uint64_t q = static_cast<std::uint64_t>(key) >> shift;
      const std::uint32_t k = fill[q];
      stage_values[q * E + k] = values[i];
      stage_bins[q * E + k] = static_cast<U>(static_cast<std::uint64_t>(key) & mask);
      if (k + 1 == E) {
        room(q);
        stream_out(at[q], stage_values + q * E, E * sizeof(T));
        stream_out(bin[q], stage_bins + q * E, E * sizeof(U));
        at[q] += E;
        bin[q] += E;
        fill[q] = 0;
      } else {
        fill[q] = k + 1;
      }
    }
    stream_fence();
    for (std::uint64_t q = 0; q < P; ++q) {
      if (fill[q] > 0) {
        room(q);
        std::copy(stage_values + q * E, stage_values + q * E + fill[q], at[q]);
        std::copy(stage_bins + q * E, stage_bins + q * E + fill[q], bin[q]);
        at[q] += fill[q];
      }
      if (last[q] != no_block) chain_fill[chains + q] = B - static_cast<std::uint64_t>(stop[q] - at[q]);
    }
  }
  for (int p = 0; p < parts; ++p) {
    if (first_bad[p] < n) {
      pass_memory().give_back(std::move(memory));
      return first_bad[p];
    }
  }

  // Pass 2: a thread streams whole partitions, each part's chain in part order.
  std::vector<std::unique_ptr<bin_streams<Op>>> streams(static_cast<std::size_t>(pl.team));
  for (auto& s : streams) s = std::make_unique<bin_streams<Op>>(mask + 1, n);
#pragma omp parallel num_threads(pl.team) if (pl.team > 1)
  {
    bin_streams<Op>& s = *streams[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
    for (std::uint64_t q = 0; q < P; ++q) {
      const std::uint64_t first_bin = q << pl.shift;
      const std::uint64_t count = std::min(mask + 1, bins - first_bin);
      s.reset(count);
      for (int p = 0; p < parts; ++p) {
        const std::uint64_t chain = static_cast<std::uint64_t>(p) * P + q;
        for (std::uint64_t block = chain_first[chain]; block != no_block;
             block = block == chain_last[chain] ? no_block : next[block]) {
          const T* const v = values_of(block);
          const U* const b = bins_of(block);
          // The next block of the chain lies elsewhere (the other partitions' blocks were drawn in between): ask
          // for it now rather than when the hardware prefetcher has seen its first lines miss.
          const std::uint64_t following = block == chain_last[chain] ? no_block : next[block];
          if (following != no_block) prefetch_bytes(reinterpret_cast<std::uintptr_t>(values_of(following)), block_size);
          s.add(
              block == chain_last[chain] ? chain_fill[chain] : B, [&](std::uint64_t k) { return std::uint64_t{b[k]}; },
              [&](std::uint64_t k) { return v[k]; });
        }
      }
      for (std::uint64_t b = 0; b < count; ++b) results[first_bin + b] = s.finish(b);
    }
  }
  pass_memory().give_back(std::move(memory));
  return n;
}

}  // namespace

template <class Op, class K>
std::uint64_t reduce_by_key(const typename Op::input* values, const K* keys, std::uint64_t n, std::uint64_t bins,
                            typename Op::result* results, const run_options& how) {
  static_assert(!order::locates_element<Op>, "a bin's streamed leaves do not know their elements' indices");
  if (bins == 0) return 0;  // every key, if any, is not a bin
  const plan pl = plan_for<Op>(n, bins, thread_count(how.threads));

  if (pl.partitions == 1) {
    // Stream the input itself, a run of keys checked (and so in L1) before its values are taken.
    constexpr std::uint64_t run = 4096;
    bin_streams<Op> streams(bins, n);
    streams.reset(bins);
    for (std::uint64_t start = 0; start < n; start += run) {
      const std::uint64_t count = std::min(run, n - start);
      for (std::uint64_t i = start; i < start + count; ++i) {
        if (!is_bin(keys[i], bins)) return i;
      }
      streams.add(
          count, [&](std::uint64_t k) { return static_cast<std::uint64_t>(keys[start + k]); },
          [&](std::uint64_t k) { return values[start + k]; });
    }
    for (std::uint64_t b = 0; b < bins; ++b) results[b] = streams.finish(b);
    return n;
  }

  if (pl.shift <= 16) return partitioned<Op, K, std::uint16_t>(values, keys, n, bins, results, pl);
  return partitioned<Op, K, std::uint32_t>(values, keys, n, bins, results, pl);
}

// The operators of the calls by key: the sums of float and double in tree and compensated mode, and stats.
template <class List>
struct instantiate_by_key;
template <class... Ops>
struct instantiate_by_key<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_by_key<Ops, std::uint32_t>..., &reduce_by_key<Ops, std::int64_t>...};
};
template struct instantiate_by_key<by_key_operators>;

}  // namespace detred::cpu
