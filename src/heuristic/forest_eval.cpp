// The two evaluation kernels of forest_eval.hpp and the choice between them.
//
// `sets` is one driver, run_sets, instantiated per instruction set with the
// operations that differ (SetOps below). The AVX-512 entry point carries a
// target attribute and `flatten`, so the driver, the operations and the
// traversal it may fall back to are compiled for AVX-512 inside it; it runs
// only where have_avx512() says so.
#include "heuristic/forest_eval.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define GCONV_FOREST_X86 1
#include <immintrin.h>
#endif

namespace gconv::heuristic::detail {

namespace {
// order_key, inlined into the row loops.
inline uint32_t key_of(float v) {
  v += 0.0f;  // -0 -> +0: they compare equal as floats
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  // Negative floats order backwards by their bits: flip them; then the sign
  // bit, so that unsigned order is float order.
  return (b >> 31) ? ~b : b | 0x80000000u;
}
}  // namespace

uint32_t order_key(float v) { return key_of(v); }

uint32_t threshold_key(float t, bool default_left) {
  // x < NaN is false for every x: all non-missing values go right. Missing
  // ones read 0 (default left), which must stay below: -inf's key.
  if (t != t) return default_left ? order_key(-std::numeric_limits<float>::infinity()) : 0;
  return order_key(t);
}

namespace {

// ---- traverse -----------------------------------------------------------

#if defined(__GNUC__) || defined(__clang__)
#define GCONV_OPAQUE(p) asm("" : "+r"(p))
#else
#define GCONV_OPAQUE(p) (void)(p)
#endif

constexpr int kTraverseInts = 16384;  // keys of one sub-block: 64 KiB
constexpr int kChains = 8;            // rows (or trees) walked at once
static_assert(kFullSplitColumnScale == kChains, "split offsets address interleaved groups of kChains rows");
static_assert(2 * kMaxKernelFeatures * kChains <= 65536, "split offsets are 16-bit");

// Row keys layout. Rows [0, B) of a block are stored in groups of kChains
// (the last one padded), each group interleaved column by column: row r's
// column c at (r - r % kChains) x W + c x kChains + r % kChains. A split
// stores its column premultiplied (off = column x kChains), so a walk reads
// its value at row_base[off] with row_base = group base + r % kChains: one
// addressing mode and, for the kChains rows of a group, one base register
// with constant displacements. W = F when the block has no missing value
// (splits read off1); otherwise each row is stored twice (W = 2F; splits read
// off2): [0, F) with NaN -> 0 (read by default-left splits: below every
// threshold key, goes left), [F, 2F) with NaN -> UINT32_MAX (default-right:
// goes right).
inline size_t key_index(int r, int c, int W) {
  return static_cast<size_t>(r - r % kChains) * W + static_cast<size_t>(c) * kChains + r % kChains;
}

// key_of over x[0, n) into out; returns whether any value is NaN. Fixed-size
// chunks let the compiler vectorize at -O2 (this conversion was a fifth of
// a prefilter's time when scalar).
inline bool keys_of(const float* x, int n, uint32_t* out) {
  constexpr int kChunk = 16;
  uint32_t nan = 0;
  int i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    for (int j = 0; j < kChunk; ++j) {
      const float v = x[i + j];
      nan |= v != v;
      out[i + j] = key_of(v);
    }
  }
  for (; i < n; ++i) {
    nan |= x[i] != x[i];
    out[i] = key_of(x[i]);
  }
  return nan != 0;
}

#if defined(GCONV_FOREST_X86)
bool have_avx2() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
  }();
  return yes;
}

// One group of widen_rows, rows [0, rows) of x (rows <= kChains; the lanes
// after them repeat row 0, whose keys nobody reads) into g, by 8 x 8
// transposes in registers. Returns whether a value is NaN (then g is
// unfinished: the block is widened again, doubled). The portable loop reads
// each column with strided scalar loads: for a selection (~45 candidate rows
// of 126 features, then the main model's 3) ~1.9 us against ~0.8 us here
// (perf samples of `gconv select --bench`, one core).
static_assert(kChains == 8, "one group is one 8 x 8 transpose per 8 columns");
__attribute__((target("avx2"))) bool widen_group_avx2(const float* x, int rows, int F, uint32_t* g) {
  const float* r[kChains];
  for (int k = 0; k < kChains; ++k) r[k] = x + static_cast<size_t>(k < rows ? k : 0) * F;
  const __m256 zero = _mm256_setzero_ps();
  const __m256i sign = _mm256_set1_epi32(INT32_MIN);
  __m256 nan = zero;
  int c = 0;
  for (; c + 8 <= F; c += 8) {
    __m256 v[8], t[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      v[k] = _mm256_loadu_ps(r[k] + c);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q));
    }
#pragma GCC unroll 4
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_ps(v[k], v[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps(v[k], v[k + 1]);
    }
#pragma GCC unroll 2
    for (int k = 0; k < 8; k += 4) {
      v[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
      v[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
      v[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
      v[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      t[j] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x20);
      t[j + 4] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x31);
    }
    // t[j]: column c + j of the 8 rows. key_of: -0 -> +0, then flip the
    // negatives' bits and set the positives' sign bit.
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const __m256i b = _mm256_castps_si256(_mm256_add_ps(t[j], zero));
      const __m256i key = _mm256_xor_si256(b, _mm256_or_si256(_mm256_srai_epi32(b, 31), sign));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(g + static_cast<size_t>(c + j) * kChains), key);
    }
  }
  bool tail_nan = false;
  for (; c < F; ++c)
    for (int k = 0; k < kChains; ++k) {
      const float v = r[k][c];
      tail_nan |= v != v;
      g[c * kChains + k] = key_of(v);
    }
  return tail_nan || _mm256_movemask_ps(nan) != 0;
}
#else
bool have_avx2() { return false; }
#endif

// Rows [0, B) of x (F features) into buf in the layout above; `avx2`: by
// widen_group_avx2 (the caller checked have_avx2()). Returns whether the
// rows are doubled (the block has a missing value).
inline bool widen_rows(const float* x, int B, int F, uint32_t* buf, bool avx2) {
  alignas(64) uint32_t tmp[kChains * kMaxKernelFeatures];
  bool missing = false;
  for (int r = 0; r < B && !missing; r += kChains) {
    const int rows = std::min(kChains, B - r);
    uint32_t* g = buf + static_cast<size_t>(r) * F;
#if defined(GCONV_FOREST_X86)
    if (avx2) {
      missing = widen_group_avx2(x + static_cast<size_t>(r) * F, rows, F, g);
      continue;
    }
#endif
    missing = keys_of(x + static_cast<size_t>(r) * F, rows * F, tmp);
    if (rows == kChains) {  // a whole group: a fixed-size transpose
      for (int c = 0; c < F; ++c)
#pragma GCC unroll 8
        for (int k = 0; k < kChains; ++k) g[c * kChains + k] = tmp[k * F + c];
    } else {
      for (int c = 0; c < F; ++c)
        for (int k = 0; k < rows; ++k) g[c * kChains + k] = tmp[k * F + c];
    }
  }
  if (!missing) return false;
  // Missing values: each row twice (rare; scalar).
  const int W = 2 * F;
  for (int r = 0; r < B; ++r) {
    const float* s = x + static_cast<size_t>(r) * F;
    for (int c = 0; c < F; ++c) {
      const float v = s[c];
      const bool miss = v != v;
      const uint32_t k = key_of(v);
      buf[key_index(r, c, W)] = miss ? 0 : k;
      buf[key_index(r, F + c, W)] = miss ? UINT32_MAX : k;
    }
  }
  return true;
}

template <bool kDoubled>
inline size_t split_off(const FullSplit& n) {
  return kDoubled ? n.off2 : n.off1;
}

// The child of complete-layout split i for a row whose value there is v:
// 2i + 1 (left) or 2i + 2 (right, when v >= key). Written so that the
// compiler can use the compare's carry (no setcc, no zero extension): with
// 64-bit indices and the row value read through an addressing mode a step
// is six instructions (node address, 2i + 2, column, key, compare, borrow),
// ~0.6 ns on Zen 4 for a group of rows.
inline size_t child(size_t i, uint32_t v, uint32_t key) { return 2 * i + 2 - (v < key); }

// NT complete-layout trees of one depth D over B rows (a multiple of
// kChains): adds each row's leaves to acc, in model order. A step's latency
// is two dependent loads (the split, then the row's value) and a compare, and
// a prefilter-sized model lives in L2, not L1: the kChains rows of a group
// walk NT trees together so that NT x kChains steps are in flight to cover
// it (NT = 2: ~10% faster than one tree; 3 or 4 run out of registers).
template <bool kDoubled, int NT>
inline void walk_groups(const FullSplit* const (&nodes)[NT], const float* const (&leaf)[NT], int D,
                        const uint32_t* buf, int W, int B, float* acc) {
  const size_t first_leaf = (size_t{1} << D) - 1;
  for (int r = 0; r < B; r += kChains) {
    const uint32_t* g = buf + static_cast<size_t>(r) * W;
    size_t i[NT][kChains];
#pragma GCC unroll 2
    for (int q = 0; q < NT; ++q)
#pragma GCC unroll 8
      for (int k = 0; k < kChains; ++k) i[q][k] = 0;
    for (int l = 0; l < D; ++l) {
      // Opaque to the optimizer each level: otherwise it hoists g + k for
      // every chain into registers it then lacks (spills) instead of using
      // k as the load's displacement.
      GCONV_OPAQUE(g);
#pragma GCC unroll 8
      for (int k = 0; k < kChains; ++k) {
#pragma GCC unroll 2
        for (int q = 0; q < NT; ++q) {
          const FullSplit& n = nodes[q][i[q][k]];
          i[q][k] = child(i[q][k], g[split_off<kDoubled>(n) + k], n.key);
        }
      }
    }
#pragma GCC unroll 8
    for (int k = 0; k < kChains; ++k)
#pragma GCC unroll 2
      for (int q = 0; q < NT; ++q) acc[r + k] += leaf[q][i[q][k] - first_leaf];
  }
}

// One complete-layout tree for one row (its values at p[off]).
template <bool kDoubled>
inline float walk_row(const FullSplit* nodes, const float* leaf, int D, const uint32_t* p) {
  size_t i = 0;
  for (int l = 0; l < D; ++l) {
    const FullSplit& n = nodes[i];
    i = child(i, p[split_off<kDoubled>(n)], n.key);
  }
  return leaf[i - ((size_t{1} << D) - 1)];
}

// kChains consecutive complete-layout trees [t, t + kChains) for one row:
// for a few rows the trees are the independent chains. A large model lives
// in L3, not L1, so a walk of one tree is a chain of cache misses; walking
// kChains trees at once overlaps them. The row adds its leaves in model order.
template <bool kDoubled>
inline float walk_tree_group(const ForestView& f, int t, const uint32_t* p, float a) {
  const FullSplit* nodes[kChains];
  const float* leaf[kChains];
  int depth[kChains];
  int deepest = 0;
#pragma GCC unroll 8
  for (int k = 0; k < kChains; ++k) {
    nodes[k] = f.full_nodes + f.full_split[t + k];
    leaf[k] = f.full_value + f.full_leaf[t + k];
    depth[k] = f.depth[t + k];
    deepest = std::max(deepest, depth[k]);
  }
  size_t i[kChains] = {};
  for (int l = 0; l < deepest; ++l) {
#pragma GCC unroll 8
    for (int k = 0; k < kChains; ++k)
      if (l < depth[k]) {
        const FullSplit& n = nodes[k][i[k]];
        // Both grandchildren are 4 adjacent splits: fetched while this
        // level's compare and the next level's load go on.
        if (l + 2 < depth[k]) __builtin_prefetch(nodes[k] + 4 * i[k] + 3);
        i[k] = child(i[k], p[split_off<kDoubled>(n)], n.key);
      }
  }
#pragma GCC unroll 8
  for (int k = 0; k < kChains; ++k) a += leaf[k][i[k] - ((size_t{1} << depth[k]) - 1)];
  return a;
}

// walk_tree_group for kChains trees of one depth D stored back to back (the
// usual case), for R rows (rows[0..R), their sums acc[0..R)): a chain's
// split index is kept absolute (tree k's own index + k x S, S = 2^D - 1
// splits a tree), so every chain addresses one node array and one leaf
// array through compile-time offsets. With no per-chain pointers or depths
// the indices stay in registers (the general version spills them). R = 2
// puts 2 x kChains walks in flight: a model too large for L2 (the cascade's
// main model, on its few rows) waits on L3 at every deep level, and twice
// the walks hide twice the latency (the indices no longer all fit in
// registers, which costs less). R = 3 is the main model's case (its 3 kept
// rows): one pass instead of R = 2 then R = 1, and the rows, which share
// most of their paths, meet the same cache lines in the same pass (~0.4 us
// of its ~8 us). Only the first row prefetches: the others mostly walk the
// same nodes, and their prefetches cost more instructions than they hide.
// The leaves are prefetched too, two levels ahead (4 adjacent floats).
template <bool kDoubled, int D, int R>
inline void walk_tree_group_fixed(const FullSplit* nodes, const float* leaf, const uint32_t* const* rows,
                                  float* acc) {
  constexpr int64_t S = (int64_t{1} << D) - 1;
  int64_t i[R][kChains];
#pragma GCC unroll 4
  for (int q = 0; q < R; ++q)
#pragma GCC unroll 8
    for (int k = 0; k < kChains; ++k) i[q][k] = k * S;
  for (int l = 0; l < D; ++l) {
#pragma GCC unroll 8
    for (int k = 0; k < kChains; ++k) {
#pragma GCC unroll 4
      for (int q = 0; q < R; ++q) {
        const FullSplit& n = nodes[i[q][k]];
        // Local index j = i - kS: grandchildren 4j+3.. (see walk_tree_group).
        if (l + 2 < D && q == 0) __builtin_prefetch(nodes + 4 * i[q][k] - 3 * k * S + 3);
        if (l + 2 == D && q == 0) __builtin_prefetch(leaf + 4 * i[q][k] - 3 * k * S + 3 - S + k);
        // Local 2j + 2 - left, made absolute again.
        i[q][k] = 2 * i[q][k] + 2 - k * S - (rows[q][split_off<kDoubled>(n)] < n.key);
      }
    }
  }
  // Leaf of tree k: local index j - S, at k x (S + 1) in the leaf array.
#pragma GCC unroll 4
  for (int q = 0; q < R; ++q) {
    float a = acc[q];
#pragma GCC unroll 8
    for (int k = 0; k < kChains; ++k) a += leaf[i[q][k] + k - S];
    acc[q] = a;
  }
}

// Whether trees [t, t + kChains) share one depth and lie back to back in
// both arrays (what walk_tree_group_fixed needs); that depth, else 0.
inline int uniform_depth(const ForestView& f, int t) {
  const int D = f.depth[t];
  if (D < 1 || D > kMaxTraverseDepth) return 0;
  const uint32_t S = (1u << D) - 1;
  for (int k = 1; k < kChains; ++k)
    if (f.depth[t + k] != D || f.full_split[t + k] != f.full_split[t] + k * S ||
        f.full_leaf[t + k] != f.full_leaf[t] + k * (S + 1))
      return 0;
  return D;
}

// Rows [r0, r1) of the block, each walking trees [t, t + kChains) of depth
// D stored back to back: three rows together, else two at a time, then the
// last one alone.
template <bool kDoubled, int D>
inline void walk_fixed_rows(const FullSplit* nodes, const float* leaf, const uint32_t* buf, int W, int r0, int r1,
                            float* acc) {
  int r = r0;
  if (r1 - r0 == 3) {
    const uint32_t* rows[3] = {buf + key_index(r, 0, W), buf + key_index(r + 1, 0, W), buf + key_index(r + 2, 0, W)};
    walk_tree_group_fixed<kDoubled, D, 3>(nodes, leaf, rows, acc + r);
    return;
  }
  for (; r + 2 <= r1; r += 2) {
    const uint32_t* rows[2] = {buf + key_index(r, 0, W), buf + key_index(r + 1, 0, W)};
    walk_tree_group_fixed<kDoubled, D, 2>(nodes, leaf, rows, acc + r);
  }
  if (r < r1) {
    const uint32_t* row = buf + key_index(r, 0, W);
    walk_tree_group_fixed<kDoubled, D, 1>(nodes, leaf, &row, acc + r);
  }
}

// Rows [r0, r1) of the block, each walking trees [t, t + kChains).
static_assert(kMaxTraverseDepth == 10, "walk_tree_group_rows instantiates depths 1..10");
template <bool kDoubled>
inline void walk_tree_group_rows(const ForestView& f, int t, const uint32_t* buf, int W, int r0, int r1,
                                 float* acc) {
  const FullSplit* nodes = f.full_nodes + f.full_split[t];
  const float* leaf = f.full_value + f.full_leaf[t];
  switch (uniform_depth(f, t)) {
#define GCONV_FIXED_DEPTH(d) \
  case d: walk_fixed_rows<kDoubled, d>(nodes, leaf, buf, W, r0, r1, acc); return;
    GCONV_FIXED_DEPTH(1)
    GCONV_FIXED_DEPTH(2)
    GCONV_FIXED_DEPTH(3)
    GCONV_FIXED_DEPTH(4)
    GCONV_FIXED_DEPTH(5)
    GCONV_FIXED_DEPTH(6)
    GCONV_FIXED_DEPTH(7)
    GCONV_FIXED_DEPTH(8)
    GCONV_FIXED_DEPTH(9)
    GCONV_FIXED_DEPTH(10)
#undef GCONV_FIXED_DEPTH
    default:
      for (int r = r0; r < r1; ++r) acc[r] = walk_tree_group<kDoubled>(f, t, buf + key_index(r, 0, W), acc[r]);
  }
}

// Trees [first_tree, num_trees) over the n rows of a block, added to acc.
// Whole groups of kChains rows walk two trees of one depth together
// (walk_groups); the remaining rows walk kChains trees at a time
// (walk_tree_group), so that every step has at least kChains independent
// chains in flight.
template <bool kDoubled>
inline void traverse_block(const ForestView& f, const float* xb, const uint32_t* buf, int W, int n, float* acc,
                           int first_tree) {
  const int F = f.num_features;
  const int grouped = n - n % kChains;
  for (int t = first_tree; t < f.num_trees && grouped > 0; ++t) {
    const uint32_t split = f.full_split[t];
    if (split != ForestView::kNone) {
      const FullSplit* const nodes = f.full_nodes + split;
      const float* const leaf = f.full_value + f.full_leaf[t];
      if (t + 1 < f.num_trees && f.full_split[t + 1] != ForestView::kNone && f.depth[t + 1] == f.depth[t]) {
        walk_groups<kDoubled, 2>({nodes, f.full_nodes + f.full_split[t + 1]}, {leaf, f.full_value + f.full_leaf[t + 1]},
                                 f.depth[t], buf, W, grouped, acc);
        ++t;  // walked
      } else {
        walk_groups<kDoubled, 1>({nodes}, {leaf}, f.depth[t], buf, W, grouped, acc);
      }
    } else {
      for (int r = 0; r < grouped; ++r) acc[r] += f.exact_tree(f.exact_ctx, t, xb + static_cast<size_t>(r) * F);
    }
  }
  if (grouped == n) return;
  for (int t = first_tree; t < f.num_trees; ++t) {
    bool group = t + kChains <= f.num_trees;
    for (int k = 0; group && k < kChains; ++k) group = f.full_split[t + k] != ForestView::kNone;
    if (group) {
      walk_tree_group_rows<kDoubled>(f, t, buf, W, grouped, n, acc);
      t += kChains - 1;
    } else if (f.full_split[t] != ForestView::kNone) {
      for (int r = grouped; r < n; ++r)
        acc[r] += walk_row<kDoubled>(f.full_nodes + f.full_split[t], f.full_value + f.full_leaf[t], f.depth[t],
                                     buf + key_index(r, 0, W));
    } else {
      for (int r = grouped; r < n; ++r) acc[r] += f.exact_tree(f.exact_ctx, t, xb + static_cast<size_t>(r) * F);
    }
  }
}

// `avx2`: widen the rows by widen_group_avx2 (have_avx2() holds).
inline void traverse_rows(const ForestView& f, const float* x, int nb, float* acc, int first_tree, bool avx2) {
  const int F = f.num_features;
  alignas(64) uint32_t buf[kTraverseInts];
  // Rows per sub-block: whole groups (the last one padded) of doubled rows fit.
  int B = std::max(1, std::min(64, kTraverseInts / std::max(2 * F, 1)));
  if (B >= kChains) B -= B % kChains;
  for (int r0 = 0; r0 < nb; r0 += B) {
    const int n = std::min(B, nb - r0);
    const float* xb = x + static_cast<size_t>(r0) * F;
    if (widen_rows(xb, n, F, buf, avx2))
      traverse_block<true>(f, xb, buf, 2 * F, n, acc + r0, first_tree);
    else
      traverse_block<false>(f, xb, buf, F, n, acc + r0, first_tree);
  }
}

// ---- sets ---------------------------------------------------------------

constexpr int kMaxRows = 256;
constexpr int kMaxWords = kMaxRows / 64;
constexpr int kBlockFloats = 16384;  // rows per block * features (+ the stride padding)
// automatic: trees walked as sets before deciding, and the cost of one set
// node visit in traversal steps (one row, one level). Measured on Zen 4
// (AVX-512): ~16 ns a visit, ~0.8 ns a step.
constexpr int kProbeTrees = 8;
// automatic: fewer rows always traverse (measured on Zen 4 with 34
// candidate rows: traverse 25 us, sets 37 us for 80 trees of depth 8).
constexpr int kMinSetRows = 128;
constexpr int kVisitCostInSteps = 20;

// Per-ISA operations on a 64-row slice:
//   right_bits(col, t)        bit r set when col[r] >= t (false for NaN);
//   store_bits(vals, bits, v) vals[r] = v for the rows in bits;
//   add_rows(acc, vals)       acc[r] += vals[r] for the 64 rows.
struct PortableOps {
  static uint64_t right_bits(const float* p, float t) {
    uint64_t m = 0;
    for (int r = 0; r < 64; ++r) m |= static_cast<uint64_t>(p[r] >= t) << r;
    return m;
  }
  static void store_bits(float* vals, uint64_t bits, float v) {
    while (bits) {
      vals[std::countr_zero(bits)] = v;
      bits &= bits - 1;
    }
  }
  static void add_rows(float* acc, const float* vals) {
    for (int r = 0; r < 64; ++r) acc[r] += vals[r];
  }
};

#if defined(GCONV_FOREST_X86)
#define GCONV_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi,bmi2,popcnt")))

struct Avx512Ops {
  GCONV_TARGET_AVX512 static uint64_t right_bits(const float* p, float t) {
    const __m512 tv = _mm512_set1_ps(t);
    const __mmask16 m0 = _mm512_cmp_ps_mask(_mm512_load_ps(p), tv, _CMP_GE_OQ);
    const __mmask16 m1 = _mm512_cmp_ps_mask(_mm512_load_ps(p + 16), tv, _CMP_GE_OQ);
    const __mmask16 m2 = _mm512_cmp_ps_mask(_mm512_load_ps(p + 32), tv, _CMP_GE_OQ);
    const __mmask16 m3 = _mm512_cmp_ps_mask(_mm512_load_ps(p + 48), tv, _CMP_GE_OQ);
    return _cvtmask64_u64(_mm512_kunpackd(_mm512_kunpackw(m3, m2), _mm512_kunpackw(m1, m0)));
  }
  GCONV_TARGET_AVX512 static void store_bits(float* vals, uint64_t bits, float v) {
    const __m512 vv = _mm512_set1_ps(v);
    const __mmask64 k = _cvtu64_mask64(bits);
    _mm512_mask_store_ps(vals, static_cast<__mmask16>(k), vv);
    _mm512_mask_store_ps(vals + 16, static_cast<__mmask16>(_kshiftri_mask64(k, 16)), vv);
    _mm512_mask_store_ps(vals + 32, static_cast<__mmask16>(_kshiftri_mask64(k, 32)), vv);
    _mm512_mask_store_ps(vals + 48, static_cast<__mmask16>(_kshiftri_mask64(k, 48)), vv);
  }
  GCONV_TARGET_AVX512 static void add_rows(float* acc, const float* vals) {
    for (int j = 0; j < 64; j += 16)
      _mm512_store_ps(acc + j, _mm512_add_ps(_mm512_load_ps(acc + j), _mm512_load_ps(vals + j)));
  }
};
#endif  // GCONV_FOREST_X86

// Per-block state, on the caller's stack (~85 KiB).
struct Block {
  // Column-major copy of the block: col[c * stride + r]. The stride is the
  // rows per block plus 16 floats, so that one row's columns do not all map
  // to the same few L1 sets while the block is transposed.
  alignas(64) float col[kBlockFloats + 16 * kMaxKernelFeatures];
  alignas(64) float acc[kMaxRows];   // margins so far
  alignas(64) float vals[kMaxRows];  // the current tree's leaf value per row
  uint64_t miss[kBlockFloats / 64];  // per column and word: rows whose value is NaN
  bool constant[kMaxKernelFeatures];  // the column holds the same bits in every row of the block
};

struct Frame {
  uint32_t node;
  uint64_t rows[kMaxWords];
};

// Transposes rows [0, nb) of x into b->col and fills b->miss.
inline void load_block(const float* x, int nb, int F, int rb, int stride, Block* b) {
  for (int r = 0; r < nb; ++r) {
    const float* src = x + static_cast<size_t>(r) * F;
    for (int c = 0; c < F; ++c) b->col[c * stride + r] = src[c];
  }
  const int words = rb / 64;
  for (int c = 0; c < F; ++c) {
    float* col = b->col + c * stride;
    std::fill(col + nb, col + rb, 0.0f);  // rows past the end: defined values, never in a set
    uint32_t first, bits;
    std::memcpy(&first, col, sizeof first);
    bool same = true;
    for (int r = 1; r < nb; ++r) {
      std::memcpy(&bits, col + r, sizeof bits);
      same &= bits == first;
    }
    b->constant[c] = same;
    for (int w = 0; w < words; ++w) {
      uint64_t m = 0;
      for (int r = 0; r < 64; ++r) m |= static_cast<uint64_t>(col[64 * w + r] != col[64 * w + r]) << r;
      b->miss[c * words + w] = m;
    }
  }
}

// One tree over the block's rows `all`: each row's leaf value into b->vals.
// Returns the vector visits (leaves and splits over a varying column).
template <class Ops>
inline int walk_sets(const SetNode* nodes, const uint64_t* all, int words, int stride, Block* b,
                     Frame* stack) {
  uint32_t i = 0;
  uint64_t s[kMaxWords];
  std::copy_n(all, kMaxWords, s);
  int sp = 0, visits = 0;
  for (;;) {
    const SetNode n = nodes[i];
    if (n.col == SetNode::kLeaf) {
      ++visits;
      for (int w = 0; w < words; ++w) Ops::store_bits(b->vals + 64 * w, s[w], n.value);
      if (sp == 0) return visits;
      --sp;
      i = stack[sp].node;
      std::copy_n(stack[sp].rows, kMaxWords, s);
      continue;
    }
    const int c = n.col & ~SetNode::kDefaultRight;
    const float* col = b->col + c * stride;
    const uint64_t* miss = b->miss + c * words;
    const uint64_t missing_right = (n.col & SetNode::kDefaultRight) ? ~uint64_t{0} : 0;
    if (b->constant[c]) {
      // The problem's own features are equal in every candidate row: one compare moves the whole set.
      const float v = col[0];
      i = (v != v ? missing_right != 0 : v >= n.value) ? n.left + 1u : n.left;
      continue;
    }
    // Every word is compared (no branch per word): most sets span them all.
    ++visits;
    uint64_t right[kMaxWords] = {}, left[kMaxWords] = {};
    uint64_t any_left = 0, any_right = 0;
    for (int w = 0; w < words; ++w) {
      right[w] = (Ops::right_bits(col + 64 * w, n.value) | (miss[w] & missing_right)) & s[w];
      left[w] = s[w] & ~right[w];
      any_left |= left[w];
      any_right |= right[w];
    }
    if (any_left && any_right) {
      stack[sp].node = n.left + 1u;
      std::copy_n(right, kMaxWords, stack[sp].rows);
      ++sp;
      std::copy_n(left, kMaxWords, s);
      i = n.left;
    } else {
      i = any_left ? n.left : n.left + 1u;  // the whole set goes one way
    }
  }
}

template <class Ops>
inline void run_sets(const ForestView& f, const float* x, int rows, float* out, bool adaptive) {
  const int F = f.num_features;
  int rb = kMaxRows;
  while (rb > 64 && F * rb > kBlockFloats) rb /= 2;
  const int words = rb / 64;
  const int stride = rb + 16;
  Block b;
  Frame stack[kMaxSetDepth + 1];
  std::fill_n(b.vals, kMaxRows, 0.0f);
  for (int r0 = 0; r0 < rows; r0 += rb) {
    const int nb = std::min(rb, rows - r0);
    const float* xb = x + static_cast<size_t>(r0) * F;
    load_block(xb, nb, F, rb, stride, &b);
    std::fill_n(b.acc, rb, f.base_margin);
    uint64_t all[kMaxWords] = {};
    for (int w = 0; w < words; ++w) {
      const int n = std::min(64, nb - 64 * w);
      all[w] = n <= 0 ? 0 : n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    }
    long visits = 0, steps = 0;  // set visits so far; traversal steps they replaced
    int t = 0;
    for (; t < f.num_trees; ++t) {
      // Rows that share little of their paths walk faster one by one.
      if (adaptive && t == kProbeTrees && visits * kVisitCostInSteps > steps) break;
      const uint32_t first = f.set_first[t];
      if (first == ForestView::kNone) {
        for (int r = 0; r < nb; ++r) b.acc[r] += f.exact_tree(f.exact_ctx, t, xb + static_cast<size_t>(r) * F);
        continue;
      }
      visits += walk_sets<Ops>(f.set_nodes + first, all, words, stride, &b, stack);
      steps += static_cast<long>(nb) * f.depth[t];
      for (int w = 0; w < words; ++w) Ops::add_rows(b.acc + 64 * w, b.vals + 64 * w);
    }
    if (t < f.num_trees) traverse_rows(f, xb, nb, b.acc, t, have_avx2());
    std::copy_n(b.acc, nb, out + r0);
  }
}

void traverse_all(const ForestView& f, const float* x, int rows, float* out, bool avx2) {
  std::fill_n(out, rows, f.base_margin);
  // Blocks of 256 rows keep the trees' arrays hot across sub-blocks.
  for (int r0 = 0; r0 < rows; r0 += kMaxRows)
    traverse_rows(f, x + static_cast<size_t>(r0) * f.num_features, std::min(kMaxRows, rows - r0), out + r0, 0, avx2);
}

void sets_portable(const ForestView& f, const float* x, int rows, float* out, bool adaptive) {
  run_sets<PortableOps>(f, x, rows, out, adaptive);
}

#if defined(GCONV_FOREST_X86)
GCONV_TARGET_AVX512 __attribute__((flatten)) void sets_avx512(const ForestView& f, const float* x, int rows,
                                                               float* out, bool adaptive) {
  run_sets<Avx512Ops>(f, x, rows, out, adaptive);
}
#endif

}  // namespace

bool have_avx512() {
#if defined(GCONV_FOREST_X86)
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  }();
  return yes;
#else
  return false;
#endif
}

bool may_use_sets(Kernel kernel, int rows) {
  if (kernel == Kernel::traverse || kernel == Kernel::traverse_portable) return false;
  if (kernel != Kernel::automatic) return true;
#if defined(GCONV_FOREST_X86)
  return have_avx512() && rows >= kMinSetRows;
#else
  (void)rows;
  return false;
#endif
}

void eval_forest(const ForestView& f, const float* x, int rows, float* out, Kernel kernel) {
  if (rows <= 0) return;
  switch (kernel) {
    case Kernel::automatic:
#if defined(GCONV_FOREST_X86)
      // A few dozen rows (a problem's candidates) walk faster one by one: the
      // set walk's block setup and per-visit cost outweigh the shared paths.
      if (have_avx512() && rows >= kMinSetRows) {
        sets_avx512(f, x, rows, out, /*adaptive=*/true);
        return;
      }
#endif
      traverse_all(f, x, rows, out, have_avx2());
      return;
    case Kernel::traverse:
      traverse_all(f, x, rows, out, have_avx2());
      return;
    case Kernel::traverse_portable:
      traverse_all(f, x, rows, out, /*avx2=*/false);
      return;
    case Kernel::sets:
#if defined(GCONV_FOREST_X86)
      if (have_avx512()) {
        sets_avx512(f, x, rows, out, /*adaptive=*/false);
        return;
      }
#endif
      sets_portable(f, x, rows, out, /*adaptive=*/false);
      return;
    case Kernel::sets_portable:
      sets_portable(f, x, rows, out, /*adaptive=*/false);
      return;
  }
}

}  // namespace gconv::heuristic::detail
