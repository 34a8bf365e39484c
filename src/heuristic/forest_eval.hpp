// Forest evaluation kernels (internal to heuristic::Forest).
//
// Two ways to evaluate a tree over a block of rows, giving identical sums:
//
// traverse  Each row walks the tree in a complete layout (node i has
//           children 2i+1 and 2i+2; leaves above the bottom are replicated
//           down; a split is 8 bytes, one load), one branch-free step per
//           level: i = 2i + 2 - (x < t). Values are compared as
//           order-preserving uint32 keys. A block of rows without missing
//           values is stored once; otherwise each row is stored twice (NaN
//           -> 0 for default-left splits, NaN -> UINT32_MAX for
//           default-right ones) so missing values need no test. Rows are
//           stored in interleaved groups of 8 and splits hold their column
//           premultiplied, so a step is six instructions (on AVX2 CPUs
//           the rows are widened into this layout by 8 x 8 transposes in
//           registers). Whole groups of 8 rows walk two trees at once so
//           that their dependent loads
//           (16 walks) overlap; the rows after them (all of them when fewer than 8, a
//           cascade's second stage) walk 8 trees at once instead, which
//           also overlaps the cache misses of a model larger than L2. Cost:
//           rows x depth steps, whatever the data. Portable.
// sets      Each tree is walked once for a block of up to 256 rows, depth
//           first, carrying the SET of rows that reaches each node (a
//           256-bit mask). A split is one vector compare over a column-major
//           copy of the block, or one scalar compare when the column is the
//           same in every row; empty halves are skipped; a leaf stores its
//           value into its rows. Cost: the distinct nodes the rows reach, ~16 ns a
//           visit. The kernels of one problem share part of their paths: for
//           a whole pool (~150 rows) of 80 trees of depth 8 it took 121 us
//           against traverse's 151 us, but for ~35 candidates 37 us against
//           25 us, and it is 2-3x dearer for unrelated rows.
//           Fast with AVX-512 only (a compare or a masked store is one
//           instruction per 16 rows).
// automatic (what Forest::predict uses) runs `sets` on AVX-512 CPUs for
//           128 rows or more and, per block, measures the first trees: when
//           the rows do not share enough of their paths it finishes the
//           block with `traverse`. Fewer rows (a problem's candidates) and
//           other CPUs run `traverse`.
//
// Float semantics are XGBoost's: a row goes right when !(x < threshold), a
// missing (NaN) value goes the split's default way. Each row receives exactly
// one leaf per tree, in model order, added in float to the base margin, so
// the sums equal XGBoost's bit for bit.
#pragma once

#include <cstdint>

namespace gconv::heuristic::detail {

// One node for the `sets` walk, breadth-first, children adjacent (right =
// left + 1). 8 bytes so that a 300-tree model stays mostly in L2.
struct SetNode {
  static constexpr uint16_t kLeaf = 0xffff;          // in col
  static constexpr uint16_t kDefaultRight = 0x8000;  // flag in col: missing goes right
  float value;    // split: threshold (NaN stored as -inf: both send every value right); leaf: its value
  uint16_t col;   // feature | kDefaultRight, or kLeaf
  uint16_t left;  // left child, relative to the tree's first node
};

// One split of the complete layout (`traverse`): 8 bytes, one load. Columns
// are stored as offsets in traverse's row-key layout (column x 8).
struct FullSplit {
  uint16_t off2;  // column in the doubled row (feature, + num_features when missing goes right) x 8
  uint16_t off1;  // the feature x 8 (rows without missing values are stored once)
  uint32_t key;   // threshold key: the row goes right when its key >= this
};
inline constexpr int kFullSplitColumnScale = 8;

// Deepest tree `sets` takes (its DFS stack) and deepest complete layout.
inline constexpr int kMaxSetDepth = 64;
inline constexpr int kMaxTraverseDepth = 10;
// Widest model the kernels take (column-major block of 64+ rows: 64 KiB);
// wider ones are evaluated tree by tree, row by row (Forest's exact path).
inline constexpr int kMaxKernelFeatures = 256;

struct ForestView {
  static constexpr uint32_t kNone = 0xffffffff;
  int num_trees = 0;
  int num_features = 0;
  float base_margin = 0;
  // Per tree.
  const uint32_t* set_first = nullptr;   // root in set_nodes, or kNone
  const uint32_t* full_split = nullptr;  // first split in full_nodes, or kNone
  const uint32_t* full_leaf = nullptr;   // first leaf in full_value
  const uint8_t* depth = nullptr;        // longest root-to-leaf path (complete layout: its depth)
  const SetNode* set_nodes = nullptr;
  // Complete layout: splits and leaf values.
  const FullSplit* full_nodes = nullptr;
  const float* full_value = nullptr;
  // Trees neither layout takes: one tree, one row (row-major), exactly.
  float (*exact_tree)(const void* ctx, int tree, const float* row) = nullptr;
  const void* exact_ctx = nullptr;
};

// sets_portable: `sets` without AVX-512 (what non-x86 hosts would run; for tests).
// traverse_portable: `traverse` widening its rows without AVX2 (the same; for tests).
enum class Kernel { automatic, traverse, sets, sets_portable, traverse_portable };

// Margins of rows (row-major x) into out. num_features <= kMaxKernelFeatures.
void eval_forest(const ForestView& f, const float* x, int rows, float* out, Kernel kernel);

// Order-preserving uint32 image of a non-NaN float (-0 and +0 map together;
// no float maps to 0 or UINT32_MAX, which missing values use).
uint32_t order_key(float v);
// The complete-layout key of a split threshold (the row goes right when its
// key >= this); NaN thresholds send every non-missing value right.
uint32_t threshold_key(float threshold, bool default_left);

// Whether `sets` runs with AVX-512 here (automatic then prefers it).
bool have_avx512();

// Whether eval_forest may run `sets` for this kernel and row count (so a
// mapped model checks its `sets` layout first).
bool may_use_sets(Kernel kernel, int rows);

}  // namespace gconv::heuristic::detail
