// Forest: reading XGBoost's model JSON (see forest.hpp for the layout) and
// evaluating it.
//
// The parts of XGBoost's model (1.6 - 2.x) this relies on:
//   learner.learner_model_param: base_score (a string, "5E-1", in 2.x/3.x
//     possibly "[5E-1]"), num_feature, num_class, num_target (strings);
//   learner.objective.name: the base margin is ProbToMargin(base_score),
//     the identity for regression and ranking, logit or log for the others;
//   learner.gradient_booster: name "gbtree", model.trees[], model.tree_info[];
//   each tree: left_children / right_children (-1 at leaves),
//     split_indices, split_conditions (the threshold, or the leaf value at a
//     leaf), default_left, sum_hessian (cover), loss_changes, split_type.
#include "heuristic/forest.hpp"

#include <filesystem>
#include "problem/read_text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "heuristic/forest_compact.hpp"
#include "heuristic/ubjson_depth.hpp"

namespace gconv::heuristic {

using nlohmann::json;

namespace {

const json* member(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// XGBoost writes parameters as strings ("5E-1", "60"); accept numbers too,
// and a one-element array (multi-target base_score of 2.x/3.x).
bool as_float(const json& j, float* out) {
  if (j.is_number()) {
    *out = static_cast<float>(j.get<double>());
    return true;
  }
  if (j.is_array() && j.size() == 1) return as_float(j[0], out);
  if (!j.is_string()) return false;
  std::string s = j.get<std::string>();
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  if (s.find(',') != std::string::npos) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, *out);  // correctly rounded, locale-free
  return ec == std::errc() && p == e;
}

bool as_int(const json& j, long long* out) {
  if (j.is_number_integer()) {
    *out = j.get<long long>();
    return true;
  }
  if (!j.is_string()) return false;
  const std::string s = j.get<std::string>();
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

// ProbToMargin of XGBoost's objectives, in float as XGBoost computes it.
Result<float> base_margin_of(const std::string& objective, float base_score) {
  static const char* const kIdentity[] = {
      "reg:squarederror", "reg:squaredlogerror", "reg:pseudohubererror", "reg:absoluteerror",
      "reg:quantileerror", "reg:linear", "rank:pairwise", "rank:ndcg", "rank:map", "binary:hinge"};
  static const char* const kLogit[] = {"binary:logistic", "reg:logistic", "binary:logitraw"};
  static const char* const kLog[] = {"count:poisson", "reg:gamma", "reg:tweedie", "survival:cox", "survival:aft"};
  for (const char* o : kIdentity)
    if (objective == o) return base_score;
  for (const char* o : kLogit)
    if (objective == o) return -std::log(1.0f / base_score - 1.0f);
  for (const char* o : kLog)
    if (objective == o) return std::log(base_score);
  return parse_error("objective '" + objective + "': its base margin is unknown to gconv's Forest");
}

// The model file's bytes; .zst / .gz are decompressed (shipped models are
// compressed). not_found for a path that does not exist.
Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status(StatusCode::not_found, "model file " + path + " does not exist");
  return problem_io::read_text_file(path);
}

}  // namespace

// Builds a Forest from a parsed model; one instance per parse.
class ForestBuilder {
 public:
  Result<Forest> build(const json& model, int expected_features);

 private:
  Status error(const std::string& what) { return parse_error("XGBoost model: " + what); }
  template <class T>
  Status read_array(const json& tree, int t, const char* key, size_t n, std::vector<T>* out, bool required = true);
  Status add_tree(const json& tree, int t);
  void add_set_tree(const Forest::Tree& tree);
  void add_full_tree(const Forest::Tree& tree);

  Forest f_;
  std::shared_ptr<Forest::Storage> s_ = std::make_shared<Forest::Storage>();
};

template <class T>
Status ForestBuilder::read_array(const json& tree, int t, const char* key, size_t n, std::vector<T>* out,
                                 bool required) {
  out->clear();
  const json* a = member(tree, key);
  if (!a) return required ? error(fmt::format("tree {} has no '{}'", t, key)) : Status::Ok();
  if (!a->is_array()) return error(fmt::format("tree {}: '{}' is not an array", t, key));
  if (n != 0 && a->size() != n)
    return error(fmt::format("tree {}: '{}' has {} entries, the tree {} nodes", t, key, a->size(), n));
  out->reserve(a->size());
  for (const json& v : *a) {
    if (v.is_boolean()) {
      out->push_back(static_cast<T>(v.get<bool>()));
    } else if (std::is_integral_v<T> ? v.is_number_integer() : v.is_number()) {
      out->push_back(std::is_integral_v<T> ? static_cast<T>(v.get<long long>()) : static_cast<T>(v.get<double>()));
    } else {
      return error(fmt::format("tree {}: '{}' holds a non-number", t, key));
    }
  }
  return Status::Ok();
}

Status ForestBuilder::add_tree(const json& tree, int t) {
  if (!tree.is_object()) return error(fmt::format("tree {} is not an object", t));
  std::vector<long long> left, right, index, split_type;
  std::vector<int> default_left;
  std::vector<float> cond, hess, loss;
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "left_children", 0, &left));
  const size_t n = left.size();
  if (n == 0) return error(fmt::format("tree {} has no nodes", t));
  if (const json* tp = member(tree, "tree_param")) {
    long long nn = 0, leaf_vec = 0;
    if (const json* v = member(*tp, "num_nodes"); v && (!as_int(*v, &nn) || nn != static_cast<long long>(n)))
      return error(fmt::format("tree {}: num_nodes does not match its {} nodes", t, n));
    if (const json* v = member(*tp, "size_leaf_vector"); v && as_int(*v, &leaf_vec) && leaf_vec > 1)
      return error(fmt::format("tree {} has vector leaves (multi-target): not supported", t));
  }
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "right_children", n, &right));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "split_indices", n, &index));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "split_conditions", n, &cond));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "default_left", n, &default_left));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "sum_hessian", n, &hess));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "loss_changes", n, &loss, false));
  GCONV_RETURN_IF_ERROR(read_array(tree, t, "split_type", n, &split_type, false));
  if (const json* c = member(tree, "categories_nodes"); c && c->is_array() && !c->empty())
    return error(fmt::format("tree {} has categorical splits: not supported", t));

  // Breadth-first from the root: renumbers the reachable nodes (deleted ones
  // are skipped) and rejects anything that is not a tree.
  Forest::Tree tr;
  tr.root = static_cast<uint32_t>(s_->nodes.size());
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> orig;  // BFS position -> node id in the file
  std::vector<int> depth;
  orig.push_back(0);
  depth.push_back(0);
  seen[0] = 1;
  const int F = f_.num_features_;
  for (size_t q = 0; q < orig.size(); ++q) {
    const uint32_t u = orig[q];
    Forest::Node node;
    const long long l = left[u], r = right[u];
    tr.depth = std::max(tr.depth, depth[q]);
    if (l == -1 && r == -1) {
      node.value = cond[u];
      node.mean = cond[u];
      s_->nodes.push_back(node);
      continue;
    }
    if (l < 0 || r < 0 || l >= static_cast<long long>(n) || r >= static_cast<long long>(n))
      return error(fmt::format("tree {} node {}: child ids {}, {} out of range [0, {})", t, u, l, r, n));
    if (seen[l] || seen[r] || l == r)
      return error(fmt::format("tree {} node {}: a child is reached twice (a cycle or a shared node)", t, u));
    if (index[u] < 0 || index[u] >= F)
      return error(fmt::format("tree {} node {}: split feature {} out of range [0, {})", t, u, index[u], F));
    if (!split_type.empty() && split_type[u] != 0)
      return error(fmt::format("tree {} node {} is a categorical split: not supported", t, u));
    seen[l] = seen[r] = 1;
    node.feature_bits = static_cast<uint32_t>(index[u]) | (default_left[u] != 0 ? Forest::Node::kDefaultLeft : 0);
    node.value = cond[u];
    // Children follow in BFS order: their positions are known now.
    node.left = static_cast<int32_t>(tr.root + orig.size());
    orig.push_back(static_cast<uint32_t>(l));
    orig.push_back(static_cast<uint32_t>(r));
    depth.push_back(depth[q] + 1);
    depth.push_back(depth[q] + 1);
    s_->nodes.push_back(node);
    f_.gain_[node.feature()] += loss.empty() ? 0.0 : loss[u];
    f_.splits_[node.feature()] += 1;
  }
  // Node expectations, children before parents (reverse BFS), in float as
  // XGBoost's FillNodeMeanValues computes them.
  for (size_t q = orig.size(); q-- > 0;) {
    Forest::Node& node = s_->nodes[tr.root + q];
    if (node.left < 0) continue;
    const uint32_t u = orig[q];
    const size_t lq = node.left - tr.root, rq = node.right() - tr.root;
    float m = s_->nodes[node.left].mean * hess[orig[lq]];
    m += s_->nodes[node.right()].mean * hess[orig[rq]];
    node.mean = hess[u] != 0 ? m / hess[u] : 0.5f * (s_->nodes[node.left].mean + s_->nodes[node.right()].mean);
  }
  add_set_tree(tr);
  add_full_tree(tr);
  s_->depth.push_back(static_cast<uint8_t>(std::min(tr.depth, 255)));
  s_->trees.push_back(tr);
  return Status::Ok();
}

// The `sets` kernel's copy of a tree already in nodes_ (same breadth-first
// order), or kNone for a tree it does not take.
void ForestBuilder::add_set_tree(const Forest::Tree& tr) {
  Forest::append_set_tree(s_->nodes.data(), tr, s_->nodes.size() - tr.root, f_.num_features_, s_->set_nodes,
                          s_->set_first);
}

void Forest::append_set_tree(const Node* nodes, const Tree& tr, size_t count, int num_features,
                             std::vector<detail::SetNode>& out, std::vector<uint32_t>& first) {
  if (tr.depth > detail::kMaxSetDepth || count > 0xfffe || num_features > detail::kMaxKernelFeatures) {
    first.push_back(detail::ForestView::kNone);
    return;
  }
  first.push_back(static_cast<uint32_t>(out.size()));
  for (size_t k = 0; k < count; ++k) {
    const Node& n = nodes[tr.root + k];
    detail::SetNode s;
    if (n.leaf()) {
      s.value = n.value;
      s.col = detail::SetNode::kLeaf;
      s.left = 0;
    } else {
      // x < NaN is false for every x, as is x < -inf: both send all values right.
      s.value = std::isnan(n.value) ? -std::numeric_limits<float>::infinity() : n.value;
      s.col = static_cast<uint16_t>(n.feature() | (n.default_left() ? 0 : detail::SetNode::kDefaultRight));
      s.left = static_cast<uint16_t>(n.left - tr.root);
    }
    out.push_back(s);
  }
}

// The `traverse` kernel's complete layout of a tree, or kNone when it is too
// deep. Padding splits compare against INT32_MIN (everything goes right);
// the leaf above them is replicated over all their leaf slots, so the
// direction does not matter.
void ForestBuilder::add_full_tree(const Forest::Tree& tr) {
  const int D = tr.depth;
  if (D > detail::kMaxTraverseDepth || f_.num_features_ > detail::kMaxKernelFeatures) {
    s_->full_split.push_back(detail::ForestView::kNone);
    s_->full_leaf.push_back(0);
    return;
  }
  const uint32_t inner = (1u << D) - 1;
  const uint32_t split0 = static_cast<uint32_t>(s_->full_nodes.size());
  const uint32_t leaf0 = static_cast<uint32_t>(s_->full_value.size());
  s_->full_split.push_back(split0);
  s_->full_leaf.push_back(leaf0);
  s_->full_nodes.resize(s_->full_nodes.size() + inner, detail::FullSplit{0, 0, 0});
  s_->full_value.resize(s_->full_value.size() + (size_t{1} << D), 0.0f);
  struct Item {
    uint32_t node, slot;
    int level;
  };
  std::vector<Item> stack = {{tr.root, 0, 0}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const Forest::Node& node = s_->nodes[it.node];
    if (node.leaf()) {
      const uint32_t first = (it.slot - ((1u << it.level) - 1)) << (D - it.level);
      std::fill_n(s_->full_value.begin() + leaf0 + first, size_t{1} << (D - it.level), node.value);
      continue;
    }
    detail::FullSplit& fs = s_->full_nodes[split0 + it.slot];
    fs.off2 = static_cast<uint16_t>((node.feature() + (node.default_left() ? 0 : f_.num_features_)) *
                                    detail::kFullSplitColumnScale);
    fs.off1 = static_cast<uint16_t>(node.feature() * detail::kFullSplitColumnScale);
    fs.key = detail::threshold_key(node.value, node.default_left());
    stack.push_back({static_cast<uint32_t>(node.left), 2 * it.slot + 1, it.level + 1});
    stack.push_back({static_cast<uint32_t>(node.right()), 2 * it.slot + 2, it.level + 1});
  }
}

Result<Forest> ForestBuilder::build(const json& model, int expected_features) {
  const json* learner = member(model, "learner");
  if (!learner) return error("no 'learner' object (not an XGBoost JSON model)");
  const json* mp = member(*learner, "learner_model_param");
  if (!mp) return error("no learner_model_param");
  long long num_feature = -1, num_class = 0, num_target = 1;
  float base_score = 0;
  const json* v = member(*mp, "num_feature");
  if (!v || !as_int(*v, &num_feature) || num_feature < 0) return error("missing or bad num_feature");
  if ((v = member(*mp, "num_class")) && (!as_int(*v, &num_class) || num_class > 1))
    return error("multi-class model (num_class " + v->dump() + "): not supported");
  if ((v = member(*mp, "num_target")) && (!as_int(*v, &num_target) || num_target > 1))
    return error("multi-target model (num_target " + v->dump() + "): not supported");
  if (!(v = member(*mp, "base_score")) || !as_float(*v, &base_score))
    return error("missing or bad base_score" + (v ? " " + v->dump() : std::string()));
  if (expected_features >= 0 && num_feature != expected_features)
    return error(fmt::format("the model has {} features, expected {}", num_feature, expected_features));
  if (num_feature > (1 << 24)) return error(fmt::format("num_feature {} is too large", num_feature));

  const json* obj = member(*learner, "objective");
  const json* obj_name = obj ? member(*obj, "name") : nullptr;
  if (!obj_name || !obj_name->is_string()) return error("no objective name");
  Result<float> margin = base_margin_of(obj_name->get<std::string>(), base_score);
  if (!margin.ok()) return margin.status();

  const json* gb = member(*learner, "gradient_booster");
  const json* gb_name = gb ? member(*gb, "name") : nullptr;
  if (!gb_name || !gb_name->is_string()) return error("no gradient_booster name");
  if (gb_name->get<std::string>() != "gbtree")
    return error("booster '" + gb_name->get<std::string>() + "' is not supported (gbtree only)");
  const json* gm = member(*gb, "model");
  const json* trees = gm ? member(*gm, "trees") : nullptr;
  if (!trees || !trees->is_array()) return error("no gradient_booster.model.trees array");
  if (const json* info = member(*gm, "tree_info")) {
    if (!info->is_array() || info->size() != trees->size())
      return error("tree_info does not have one entry per tree");
    for (const json& g : *info)
      if (!g.is_number_integer() || g.get<long long>() != 0) return error("tree_info names an output group != 0");
  }

  f_.num_features_ = static_cast<int>(num_feature);
  f_.objective_ = obj_name->get<std::string>();
  f_.base_margin_ = *margin;
  f_.gain_.assign(f_.num_features_, 0.0);
  f_.splits_.assign(f_.num_features_, 0);
  for (size_t t = 0; t < trees->size(); ++t) GCONV_RETURN_IF_ERROR(add_tree((*trees)[t], static_cast<int>(t)));
  f_.adopt(std::move(s_));
  return std::move(f_);
}

namespace {

Result<Forest> build_guarded(const json& model, int expected_features) {
  try {
    return ForestBuilder().build(model, expected_features);
  } catch (const std::exception& e) {  // nlohmann type errors, bad_alloc: never across the API
    return parse_error(std::string("XGBoost model: ") + e.what());
  }
}

}  // namespace

Result<Forest> Forest::from_json(const std::string& text, int expected_features) {
  GCONV_RETURN_IF_ERROR(check_json_depth(text, "XGBoost model"));
  json model = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (model.is_discarded()) return parse_error("XGBoost model: not valid JSON (truncated or corrupt)");
  return build_guarded(model, expected_features);
}

Result<Forest> Forest::from_ubjson(const std::string& bytes, int expected_features) {
  GCONV_RETURN_IF_ERROR(check_ubjson_depth(bytes, "XGBoost model", kMaxJsonDepth));
  json model = json::from_ubjson(bytes, /*strict=*/true, /*allow_exceptions=*/false);
  if (model.is_discarded()) return parse_error("XGBoost model: not valid UBJSON (truncated or corrupt)");
  return build_guarded(model, expected_features);
}

Result<Forest> Forest::load_file(const std::string& path, int expected_features, uint64_t* bytes_checksum) {
  Result<std::string> bytes = read_file(path);
  if (!bytes.ok()) return bytes.status();
  if (bytes_checksum) *bytes_checksum = heuristic::compact_checksum(bytes->data(), bytes->size());
  // UBJSON objects open with '{' and a key-length type marker; JSON with '{' and '"' or space.
  const std::string& b = *bytes;
  size_t i = 0;
  while (i < b.size() && std::isspace(static_cast<unsigned char>(b[i]))) ++i;
  const bool ubj = i + 1 < b.size() && b[i] == '{' && std::isalpha(static_cast<unsigned char>(b[i + 1]));
  Result<Forest> f = ubj ? from_ubjson(b, expected_features) : from_json(b, expected_features);
  if (!f.ok()) return Status(f.status().code(), path + ": " + f.status().message());
  return f;
}

void Forest::adopt(std::shared_ptr<const Storage> s) {
  trees_ = span_of(s->trees);
  nodes_ = span_of(s->nodes);
  set_nodes_ = span_of(s->set_nodes);
  set_first_ = span_of(s->set_first);
  full_split_ = span_of(s->full_split);
  full_leaf_ = span_of(s->full_leaf);
  depth_ = span_of(s->depth);
  full_nodes_ = span_of(s->full_nodes);
  full_value_ = span_of(s->full_value);
  owner_ = std::move(s);
  compact_checksum_ = 0;
  lazy_.reset();
}

// ---- evaluation -------------------------------------------------------

float Forest::tree_value_exact(const Tree& t, const float* row) const {
  const Node* n = &nodes_[t.root];
  while (!n->leaf()) {
    const float v = row[n->feature()];
    const bool left = std::isnan(v) ? n->default_left() : v < n->value;
    n = &nodes_[left ? n->left : n->right()];
  }
  return n->value;
}

void Forest::predict_exact(const float* x, int rows, float* out) const {
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<size_t>(r) * num_features_;
    float s = base_margin_;
    for (const Tree& t : trees_) s += tree_value_exact(t, row);
    out[r] = s;
  }
}

float Forest::exact_tree(const void* self, int tree, const float* row) {
  const Forest* f = static_cast<const Forest*>(self);
  return f->tree_value_exact(f->trees_[tree], row);
}

int Forest::num_exact_trees() const {
  // By the layouts' own rules (append_set_tree, add_full_tree), not by
  // set_first_: a mapped forest builds its `sets` layout only when used.
  int n = 0;
  for (size_t t = 0; t < trees_.size(); ++t) {
    const size_t count = (t + 1 < trees_.size() ? trees_[t + 1].root : nodes_.size()) - trees_[t].root;
    const bool sets_take = trees_[t].depth <= detail::kMaxSetDepth && count <= 0xfffe &&
                           num_features_ <= detail::kMaxKernelFeatures;
    n += !sets_take && full_split_[t] == detail::ForestView::kNone;
  }
  return n;
}

void Forest::predict(const float* x, int rows, float* out) const { predict(x, rows, out, detail::Kernel::automatic); }

void Forest::predict(const float* x, int rows, float* out, detail::Kernel kernel) const {
  if (rows <= 0) return;
  // A mapped model's `sets` layout is checked on its first use (a
  // selection's few rows never use it); if the check fails, the complete
  // layout gives the same sums.
  const uint32_t* set_first = set_first_.data();
  const detail::SetNode* set_nodes = set_nodes_.data();
  if (lazy_ && kernel != detail::Kernel::traverse && detail::may_use_sets(kernel, rows)) {
    if (!structure_ok()) {
      kernel = detail::Kernel::traverse;
    } else {
      set_first = lazy_->set_first.data();
      set_nodes = lazy_->set_nodes.data();
    }
  }
  if (num_features_ > detail::kMaxKernelFeatures) {
    predict_exact(x, rows, out);
    return;
  }
  detail::ForestView v;
  v.num_trees = num_trees();
  v.num_features = num_features_;
  v.base_margin = base_margin_;
  v.set_first = set_first;
  v.full_split = full_split_.data();
  v.full_leaf = full_leaf_.data();
  v.depth = depth_.data();
  v.set_nodes = set_nodes;
  v.full_nodes = full_nodes_.data();
  v.full_value = full_value_.data();
  v.exact_tree = &Forest::exact_tree;
  v.exact_ctx = this;
  detail::eval_forest(v, x, rows, out, kernel);
}

void Forest::contributions(const float* row, float* out) const {
  const int F = num_features_;
  std::fill_n(out, F + 1, 0.0f);
  if (!structure_ok()) {  // the node arrays failed their check: the margin as bias alone
    predict(row, 1, out + F, detail::Kernel::traverse);
    return;
  }
  for (const Tree& t : trees_) {
    const Node* n = &nodes_[t.root];
    float node_value = n->mean;
    out[F] += node_value;
    uint32_t split = 0;
    while (!n->leaf()) {
      split = n->feature();
      const float v = row[split];
      const bool left = std::isnan(v) ? n->default_left() : v < n->value;
      n = &nodes_[left ? n->left : n->right()];
      out[split] += n->mean - node_value;
      node_value = n->mean;
    }
    if (n != &nodes_[t.root]) out[split] += n->value - node_value;
  }
  out[F] += base_margin_;
}

}  // namespace gconv::heuristic
