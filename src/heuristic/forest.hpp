// A compiled tree ensemble: the kernel selector's hot path. It reads an
// XGBoost gbtree model (the JSON or UBJSON file Booster::save_file writes)
// into flat arrays and computes the same margins as XGBoost's
// predict(output_margin=true), bit for bit on the supported objectives.
//
// Evaluation kernels are in forest_eval.hpp: a branch-free row-by-row walk
// of complete-layout trees, and (AVX-512) a walk of each tree with the set
// of rows at each node, which is much cheaper when the rows share their
// paths, as the candidate kernels of one problem do. Trees deeper than the
// kernels take, and models wider than detail::kMaxKernelFeatures, are
// evaluated exactly node by node instead.
//
// Sums are formed as XGBoost forms them: base margin first, then each tree's
// leaf in model order, in float.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "heuristic/forest_eval.hpp"

namespace gconv::heuristic {

class Forest {
 public:
  Forest() = default;  // no trees, no features: predicts 0

  // Parses XGBoost's JSON model text. parse_error (with the reason) for
  // malformed JSON or arrays (ids out of range, a node reached twice,
  // inconsistent sizes), a booster other than gbtree, multi-class or
  // multi-target models, categorical splits, an objective whose base margin
  // is unknown, or (expected_features >= 0) a different feature count.
  static Result<Forest> from_json(const std::string& xgb_json_text, int expected_features = -1);
  // The same from XGBoost's UBJSON model bytes.
  static Result<Forest> from_ubjson(const std::string& xgb_ubj_bytes, int expected_features = -1);
  // A model file; JSON or UBJSON decided by its content. `bytes_checksum`
  // (may be null) receives compact_checksum() of the file's (decompressed)
  // bytes, which a manifest records to tie the file to it.
  static Result<Forest> load_file(const std::string& path, int expected_features = -1,
                                  uint64_t* bytes_checksum = nullptr);

  // The compact form (forest_compact.cpp has the layout): this forest's
  // arrays as evaluation uses them, behind a header with a version and a
  // checksum, written once (`gconv model compact`) and mapped read-only at
  // load, so that loading costs a validation pass instead of a parse.
  // write_compact: io_error naming the path; *checksum (may be null) gets
  // the header's checksum. load_compact: parse_error naming the path and
  // the field for a file that is truncated, corrupt (checksum), of another
  // version, or whose indices point outside their arrays; io_error /
  // not_found when it cannot be read. The mapping lives as long as the
  // Forest (and its copies).
  Status write_compact(const std::string& path, uint64_t* checksum = nullptr) const;
  static Result<Forest> load_compact(const std::string& path, int expected_features = -1);
  // The header checksum of the compact file this forest was mapped from (0 otherwise).
  uint64_t compact_checksum() const { return compact_checksum_; }

  int num_features() const { return num_features_; }
  int num_trees() const { return static_cast<int>(trees_.size()); }
  float base_margin() const { return base_margin_; }
  const std::string& objective() const { return objective_; }

  // Margins of `rows` rows (x row-major, num_features() columns, NaN =
  // missing) into out[0..rows). No allocation; ~100 KiB of stack.
  // Thread-safe (const, no shared state).
  void predict(const float* x, int rows, float* out) const;
  // The same with a given kernel (tests, benchmarks).
  void predict(const float* x, int rows, float* out, detail::Kernel kernel) const;
  // Trees evaluated node by node, outside the kernels (too deep).
  int num_exact_trees() const;

  // Path-based ("Saabas") contributions of one row, as XGBoost's
  // pred_contribs with approx_contribs: out[0..num_features()) per feature,
  // out[num_features()] the bias (base margin + the trees' root expectations).
  // They sum to the margin (up to float rounding). Node expectations are the
  // cover-weighted means of the leaves below (XGBoost's node mean values).
  void contributions(const float* row, float* out) const;

  // Per feature: the sum of the loss reductions of its splits (XGBoost's
  // "total_gain" importance) and the number of its splits.
  const std::vector<double>& feature_gain() const { return gain_; }
  const std::vector<int>& feature_splits() const { return splits_; }

 private:
  struct Tree {
    int32_t depth = 0;  // longest root-to-leaf path
    uint32_t root = 0;  // index into nodes_
  };
  // The model as read (reachable nodes only, renumbered breadth-first, so
  // children come after their parent, next to each other, inside their
  // tree's range). 16 bytes, every byte defined: the compact file holds
  // these structs as they are and must be reproducible byte for byte.
  struct Node {
    static constexpr uint32_t kDefaultLeft = 0x80000000u;  // in feature_bits
    int32_t left = -1;           // index into nodes_ of the left child (the right one is left + 1); -1: a leaf
    uint32_t feature_bits = 0;   // split feature (< 2^24) | kDefaultLeft when missing values go left
    float value = 0;             // split: its threshold (go left when x < value); leaf: its value
    float mean = 0;              // cover-weighted mean of the leaves below
    bool leaf() const { return left < 0; }
    int32_t right() const { return left + 1; }
    uint32_t feature() const { return feature_bits & ~kDefaultLeft; }
    bool default_left() const { return (feature_bits & kDefaultLeft) != 0; }
  };
  // A read-only array that is either one of Storage's vectors or a part of a
  // mapped compact file; owner_ keeps whichever it is alive.
  template <class T>
  struct Span {
    const T* p = nullptr;
    size_t n = 0;
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    const T* data() const { return p; }
    const T* begin() const { return p; }
    const T* end() const { return p + n; }
    const T& operator[](size_t i) const { return p[i]; }
  };
  // The arrays a parsed model is built into.
  struct Storage {
    std::vector<Tree> trees;
    std::vector<Node> nodes;
    std::vector<detail::SetNode> set_nodes;
    std::vector<uint32_t> set_first, full_split, full_leaf;
    std::vector<uint8_t> depth;
    std::vector<detail::FullSplit> full_nodes;
    std::vector<float> full_value;
  };
  template <class T>
  static Span<T> span_of(const std::vector<T>& v) {
    return {v.data(), v.size()};
  }
  void adopt(std::shared_ptr<const Storage> s);
  friend class ForestBuilder;
  friend class CompactIO;

  float tree_value_exact(const Tree& t, const float* row) const;
  static float exact_tree(const void* self, int tree, const float* row);
  void predict_exact(const float* x, int rows, float* out) const;

  int num_features_ = 0;
  float base_margin_ = 0;
  std::string objective_;
  // A mapped compact file's checks that selection does not need (see
  // forest_compact.cpp), run once on first need, and the `sets` layout,
  // built then from the checked nodes (the file does not hold it: it is
  // derived, and only bulk evaluation uses it); null for parsed models.
  struct LazyCheck {
    std::once_flag once;
    bool ok = false;
    std::string path;
    std::vector<uint32_t> set_first;
    std::vector<detail::SetNode> set_nodes;
  };
  // The `sets` copy of tree `tr` (count nodes at nodes[tr.root..]) appended
  // to `out`, its first index to `first` (kNone when the kernel does not
  // take the tree). One function for the parser and the mapped file.
  static void append_set_tree(const Node* nodes, const Tree& tr, size_t count, int num_features,
                              std::vector<detail::SetNode>& out, std::vector<uint32_t>& first);
  // Whether the whole structure is valid (runs the lazy check once); when it
  // is not, predict() evaluates by the complete layout only.
  bool structure_ok() const;

  std::shared_ptr<const void> owner_;  // a Storage or a mapped compact file
  std::shared_ptr<LazyCheck> lazy_;
  uint64_t compact_checksum_ = 0;
  Span<Tree> trees_;
  Span<Node> nodes_;
  // The kernels' layouts (detail::ForestView documents them).
  Span<detail::SetNode> set_nodes_;
  Span<uint32_t> set_first_, full_split_, full_leaf_;
  Span<uint8_t> depth_;
  Span<detail::FullSplit> full_nodes_;
  Span<float> full_value_;
  std::vector<double> gain_;
  std::vector<int> splits_;
};

}  // namespace gconv::heuristic
