// The compact form of a Forest: its arrays as evaluation reads them, in one
// file that is mapped read-only instead of parsed (a 22 MB UBJSON model took
// ~0.7 s and ~200 MB to parse; this takes a validation pass).
//
// Layout (little-endian, every array at a 64-byte aligned offset, zero
// padding between, so a page-aligned mapping gives aligned arrays):
//   Header        96 bytes: magic "GCFOREST", version, byte-order mark, file
//                 size, checksum of the whole file (this field read as 0), number of
//                 features and trees, base margin, number of arrays, the
//                 XGBoost objective name
//   ArrayEntry[]  one per array, in ArrayId order: id, element size, offset,
//                 count
//   arrays        Forest's trees_, nodes_, set_first_ (all kNone), full_split_,
//                 full_leaf_, depth_, set_nodes_ (empty: the `sets` layout is
//                 derived from the nodes when first used), full_nodes_,
//                 full_value_, then feature_gain() (double) and
//                 feature_splits() (int32)
// The bytes are a function of the model alone (no struct has padding, the
// gaps are zero): converting the same model twice gives the same file.
//
// Trust: a file is checked before any evaluation can read it. The checksum
// catches corruption; the structural checks below make a file that passes
// it by construction (or by intent) still safe to evaluate: every index an
// evaluation kernel follows is inside its array and every walk ends. The
// lazy check also ties the complete layout to the nodes, so that every
// kernel gives the same margins (else only the complete layout is used).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

#include "heuristic/forest.hpp"
#include "heuristic/forest_compact.hpp"
#include "core/log.hpp"

namespace gconv::heuristic {

namespace {

constexpr char kMagic[8] = {'G', 'C', 'F', 'O', 'R', 'E', 'S', 'T'};
constexpr uint32_t kVersion = 2;  // 1 (never shipped): 28-byte nodes and a stored `sets` layout
constexpr uint32_t kByteOrderMark = 0x01020304;
constexpr size_t kAlign = 64;
// Far above any selector (the shipped one is ~15 MB): a bound on what a
// corrupt size field can make us map.
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 31;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t byte_order;
  uint64_t file_bytes;
  uint64_t checksum;  // compact_file_checksum: of the whole file, this field read as 0
  int32_t num_features;
  int32_t num_trees;
  float base_margin;
  uint32_t num_arrays;
  char objective[48];  // NUL-terminated, NUL-padded
};
static_assert(sizeof(Header) == 96, "the header layout is part of the file format");

enum ArrayId : uint32_t {
  kTrees, kNodes, kSetFirst, kFullSplit, kFullLeaf, kDepth, kSetNodes, kFullNodes, kFullValue, kGain, kSplits, kNumArrays
};
constexpr const char* kArrayNames[kNumArrays] = {"trees",      "nodes",      "set_first",  "full_split",
                                                 "full_leaf",  "depth",      "set_nodes",  "full_nodes",
                                                 "full_value", "gain",       "splits"};

struct ArrayEntry {
  uint32_t id;
  uint32_t elem_bytes;
  uint64_t offset;
  uint64_t count;
};
static_assert(sizeof(ArrayEntry) == 24, "the table layout is part of the file format");

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// A read-only private mapping of a whole file, unmapped with its last user.
struct Mapping {
  const unsigned char* data = nullptr;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (data) munmap(const_cast<unsigned char*>(data), size);
  }
};

}  // namespace

namespace {

// compact_checksum over data given in pieces (every piece but the last a
// multiple of 32 bytes), so that a file is checked through a small buffer.
// Four independent multiply-xor lanes over 8-byte words (~10 GB/s), then
// the tail and the length, then a final avalanche. Not cryptographic: it
// detects corruption and mix-ups, not forgery.
class ChecksumStream {
 public:
  void update(const void* data, size_t n) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
      for (int j = 0; j < 4; ++j) mix(j, p + i + 8 * j);
    total_ += i;
    tail_n_ = n - i;
    std::memcpy(tail_, p + i, tail_n_);
  }
  uint64_t finish() {
    unsigned char last[32] = {};
    std::memcpy(last, tail_, tail_n_);
    for (int j = 0; j < 4; ++j) mix(j, last + 8 * j);
    uint64_t h = (total_ + tail_n_) * kMul;
    for (int j = 0; j < 4; ++j) {
      h = (h ^ lane_[j]) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
  }

 private:
  static constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  void mix(int j, const unsigned char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    lane_[j] = (lane_[j] ^ w) * kMul;
    lane_[j] ^= lane_[j] >> 29;
  }
  uint64_t lane_[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
  uint64_t total_ = 0;
  unsigned char tail_[32] = {};
  size_t tail_n_ = 0;
};

uint64_t combine(const Header& zeroed, uint64_t payload) {
  const uint64_t parts[2] = {compact_checksum(&zeroed, sizeof zeroed), payload};
  return compact_checksum(parts, sizeof parts);
}

}  // namespace

uint64_t compact_checksum(const void* data, size_t n) {
  ChecksumStream c;
  c.update(data, n);
  return c.finish();
}

uint64_t compact_file_checksum(const void* file, size_t n) {
  if (n < sizeof(Header)) return compact_checksum(file, n);
  Header h;
  std::memcpy(&h, file, sizeof h);
  h.checksum = 0;
  return combine(h, compact_checksum(static_cast<const unsigned char*>(file) + sizeof h, n - sizeof h));
}

std::string checksum_hex(uint64_t c) { return fmt::format("{:016x}", c); }

// Reads and writes Forest's private arrays.
class CompactIO {
 public:
  static Status write(const Forest& f, const std::string& path, uint64_t* checksum);
  static Result<Forest> load(const std::string& path, int expected_features);

 private:
  static Status check_nodes(const Forest& f, size_t t, std::vector<int32_t>& level);
  static Status check_full_layout(const Forest& f, size_t t);
  static Status validate_eager(const Forest& f);
  static Status validate_lazy(const Forest& f, Forest::LazyCheck* lazy);
  friend class Forest;
};

Status CompactIO::write(const Forest& f, const std::string& path, uint64_t* checksum) {
  if (f.objective_.size() >= sizeof(Header::objective))
    return invalid_argument("objective '" + f.objective_ + "' is too long for the compact form");
  struct Part {
    const void* data;
    size_t elem, count;
  };
  // The `sets` layout is derived from the nodes: it is not stored (a quarter
  // less file) but built when a mapped forest first uses it. Its per-tree
  // table stays (all kNone) so that the array table keeps one layout.
  const std::vector<uint32_t> none_first(f.trees_.size(), detail::ForestView::kNone);
  const Part parts[kNumArrays] = {
      {f.trees_.data(), sizeof(Forest::Tree), f.trees_.size()},
      {f.nodes_.data(), sizeof(Forest::Node), f.nodes_.size()},
      {none_first.data(), sizeof(uint32_t), none_first.size()},
      {f.full_split_.data(), sizeof(uint32_t), f.full_split_.size()},
      {f.full_leaf_.data(), sizeof(uint32_t), f.full_leaf_.size()},
      {f.depth_.data(), sizeof(uint8_t), f.depth_.size()},
      {nullptr, sizeof(detail::SetNode), 0},
      {f.full_nodes_.data(), sizeof(detail::FullSplit), f.full_nodes_.size()},
      {f.full_value_.data(), sizeof(float), f.full_value_.size()},
      {f.gain_.data(), sizeof(double), f.gain_.size()},
      {f.splits_.data(), sizeof(int32_t), f.splits_.size()},
  };
  static_assert(sizeof(int) == sizeof(int32_t), "feature_splits() is stored as int32");
  static_assert(sizeof(Forest::Node) == 16 && sizeof(Forest::Tree) == 8 && sizeof(detail::FullSplit) == 8,
                "the element layouts are part of the file format (kVersion)");
  ArrayEntry table[kNumArrays];
  size_t end = align_up(sizeof(Header) + sizeof(table));
  for (uint32_t a = 0; a < kNumArrays; ++a) {
    table[a] = {a, uint32_t(parts[a].elem), end, parts[a].count};
    end = align_up(end + parts[a].elem * parts[a].count);
  }
  std::string bytes(end, '\0');
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.byte_order = kByteOrderMark;
  h.file_bytes = end;
  h.num_features = f.num_features_;
  h.num_trees = f.num_trees();
  h.base_margin = f.base_margin_;
  h.num_arrays = kNumArrays;
  std::memcpy(h.objective, f.objective_.data(), f.objective_.size());
  std::memcpy(bytes.data() + sizeof(Header), table, sizeof table);
  for (uint32_t a = 0; a < kNumArrays; ++a)
    if (parts[a].count) std::memcpy(bytes.data() + table[a].offset, parts[a].data, parts[a].elem * parts[a].count);
  std::memcpy(bytes.data(), &h, sizeof h);
  h.checksum = compact_file_checksum(bytes.data(), bytes.size());
  std::memcpy(bytes.data(), &h, sizeof h);

  // Written beside and renamed: a reader never maps a half-written file.
  const std::string tmp = path + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (!out) return io_error(tmp + ": " + std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  if (std::fclose(out) != 0 || !ok) {
    std::remove(tmp.c_str());
    return io_error(tmp + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return io_error(path + ": " + ec.message());
  if (checksum) *checksum = h.checksum;
  return Status::Ok();
}

namespace {

// Reads the header of an open compact file of `size` bytes into *h and
// checks it and the whole file's checksum (pread through 256 KiB).
Status read_checked(int fd, uint64_t size, Header* h, const std::string& path) {
  auto bad = [&](const std::string& what) { return parse_error(path + ": compact model: " + what); };
  std::vector<unsigned char> buf(size_t(1) << 18);  // a multiple of 32 (see ChecksumStream)
  uint64_t at = 0;
  ChecksumStream payload;
  while (at < size) {
    const size_t want = size_t(std::min<uint64_t>(buf.size(), size - at));
    size_t got = 0;
    while (got < want) {
      const ssize_t r = ::pread(fd, buf.data() + got, want - got, off_t(at + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return io_error(path + ": read: " + (r < 0 ? std::strerror(errno) : "file shrank while read"));
      got += size_t(r);
    }
    size_t from = 0;
    if (at == 0) {
      std::memcpy(h, buf.data(), sizeof *h);
      if (std::memcmp(h->magic, kMagic, sizeof kMagic) != 0) return bad("magic: not a gconv compact forest");
      if (h->byte_order != kByteOrderMark) return bad("byte_order: written on a machine of the other byte order");
      if (h->version != kVersion) return bad(fmt::format("version {}, this build reads {}", h->version, kVersion));
      if (h->file_bytes != size)
        return bad(fmt::format("file_bytes: the header says {} bytes, the file has {} (truncated or appended to)",
                               h->file_bytes, size));
      from = sizeof(Header);  // 96: the payload's pieces stay multiples of 32
    }
    payload.update(buf.data() + from, want - from);
    at += want;
  }
  Header zeroed = *h;
  zeroed.checksum = 0;
  const uint64_t sum = combine(zeroed, payload.finish());
  if (sum != h->checksum)
    return bad(fmt::format("checksum: the header says {}, the contents give {} (corrupt)", checksum_hex(h->checksum),
                           checksum_hex(sum)));
  return Status::Ok();
}

}  // namespace

Result<Forest> CompactIO::load(const std::string& path, int expected_features) {
  auto bad = [&](const std::string& what) { return parse_error(path + ": compact model: " + what); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: a FIFO must not block
  if (fd < 0)
    return Status(errno == ENOENT ? StatusCode::not_found : StatusCode::io_error, path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return io_error(path + ": not a regular file");
  }
  const uint64_t size = uint64_t(st.st_size);
  if (size < sizeof(Header)) {
    ::close(fd);
    return bad(fmt::format("truncated: {} bytes, the header alone is {}", size, sizeof(Header)));
  }
  if (size > kMaxFileBytes) {
    ::close(fd);
    return bad(fmt::format("{} bytes, more than the limit of {}", size, kMaxFileBytes));
  }
  // The header and the checksum are read through a small buffer, not the
  // mapping: pages a selection never reads (the exact nodes, the `sets`
  // layout) then stay out of the process's resident memory.
  Header h;
  Status rs = read_checked(fd, size, &h, path);
  if (!rs.ok()) {
    ::close(fd);
    return rs;
  }
  void* m = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return io_error(path + ": mmap: " + std::strerror(errno));
  auto map = std::make_shared<Mapping>();
  map->data = static_cast<const unsigned char*>(m);
  map->size = size;
  if (h.objective[sizeof h.objective - 1] != '\0') return bad("objective: not NUL-terminated");
  if (h.num_features < 0 || h.num_features > (1 << 24)) return bad(fmt::format("num_features {}", h.num_features));
  if (expected_features >= 0 && h.num_features != expected_features)
    return bad(fmt::format("num_features: the model has {} features, expected {}", h.num_features, expected_features));
  if (h.num_trees < 0) return bad(fmt::format("num_trees {}", h.num_trees));
  if (h.num_arrays != kNumArrays) return bad(fmt::format("num_arrays {}, expected {}", h.num_arrays, kNumArrays));
  if (sizeof(Header) + sizeof(ArrayEntry) * kNumArrays > size) return bad("truncated array table");

  Forest f;
  const uint64_t expected_count[kNumArrays] = {
      uint64_t(h.num_trees), 0, uint64_t(h.num_trees), uint64_t(h.num_trees), uint64_t(h.num_trees),
      uint64_t(h.num_trees), 0, 0, 0, uint64_t(h.num_features), uint64_t(h.num_features)};
  const size_t elem_bytes[kNumArrays] = {sizeof(Forest::Tree), sizeof(Forest::Node), 4, 4, 4, 1,
                                         sizeof(detail::SetNode), sizeof(detail::FullSplit), 4, 8, 4};
  const void* where[kNumArrays];
  uint64_t count[kNumArrays];
  const uint64_t table_end = sizeof(Header) + sizeof(ArrayEntry) * kNumArrays;
  for (uint32_t a = 0; a < kNumArrays; ++a) {
    ArrayEntry e;
    std::memcpy(&e, map->data + sizeof(Header) + a * sizeof(ArrayEntry), sizeof e);
    const std::string name = kArrayNames[a];
    if (e.id != a || e.elem_bytes != elem_bytes[a])
      return bad(fmt::format("array table entry {}: id {} element size {}, expected {} ({}) of {}", a, e.id,
                             e.elem_bytes, a, name, elem_bytes[a]));
    if (e.offset % kAlign != 0 || e.offset < table_end || e.offset > size ||
        e.count > (size - e.offset) / elem_bytes[a])
      return bad(fmt::format("array '{}': offset {} count {} outside the file ({} bytes)", name, e.offset, e.count,
                             size));
    if ((a < kNodes || (a > kNodes && a <= kDepth) || a >= kGain) && e.count != expected_count[a])
      return bad(fmt::format("array '{}': {} entries, expected {}", name, e.count, expected_count[a]));
    where[a] = map->data + e.offset;
    count[a] = e.count;
  }
  auto span = [&](auto* dummy, uint32_t a) {
    using T = std::remove_pointer_t<decltype(dummy)>;
    return Forest::Span<T>{static_cast<const T*>(where[a]), size_t(count[a])};
  };
  f.num_features_ = h.num_features;
  f.base_margin_ = h.base_margin;
  f.objective_ = h.objective;
  f.trees_ = span(static_cast<Forest::Tree*>(nullptr), kTrees);
  f.nodes_ = span(static_cast<Forest::Node*>(nullptr), kNodes);
  f.set_first_ = span(static_cast<uint32_t*>(nullptr), kSetFirst);
  f.full_split_ = span(static_cast<uint32_t*>(nullptr), kFullSplit);
  f.full_leaf_ = span(static_cast<uint32_t*>(nullptr), kFullLeaf);
  f.depth_ = span(static_cast<uint8_t*>(nullptr), kDepth);
  f.set_nodes_ = span(static_cast<detail::SetNode*>(nullptr), kSetNodes);
  f.full_nodes_ = span(static_cast<detail::FullSplit*>(nullptr), kFullNodes);
  f.full_value_ = span(static_cast<float*>(nullptr), kFullValue);
  const auto gain = span(static_cast<double*>(nullptr), kGain);
  const auto splits = span(static_cast<int32_t*>(nullptr), kSplits);
  f.gain_.assign(gain.begin(), gain.end());
  f.splits_.assign(splits.begin(), splits.end());
  if (Status s = validate_eager(f); !s.ok()) return bad(s.message());
  f.owner_ = std::move(map);
  f.compact_checksum_ = h.checksum;
  f.lazy_ = std::make_shared<Forest::LazyCheck>();
  f.lazy_->path = path;
  return f;
}

// The structure evaluation relies on, in two parts. Eager (at load): the
// per-tree tables, the complete layout a selection walks (every range in
// its arrays, every column offset inside a row), and the nodes of trees
// only the exact path evaluates. Lazy (Forest::structure_ok, on the first
// use of the `sets` kernel or of contributions): every tree's nodes, which
// a selection never reads, so their pages are not made resident at load;
// the `sets` layout is then built from them.
//
// Nodes: a tree's nodes are the contiguous range up to the next tree's root
// in breadth-first order, so the k-th split's children are exactly the next
// two unclaimed nodes; that reaches every node once, makes every child
// index larger than its parent's (walks end) and keeps it inside the tree.
Status CompactIO::check_nodes(const Forest& f, size_t t, std::vector<int32_t>& level) {
  const Forest::Tree& tr = f.trees_[t];
  const size_t end = t + 1 < f.trees_.size() ? f.trees_[t + 1].root : f.nodes_.size();
  size_t claimed = size_t(tr.root) + 1;  // one past the last node reached so far
  int32_t depth = 0;
  level.assign(1, 0);
  for (size_t i = tr.root; i < claimed; ++i) {
    if (i >= end) return parse_error(fmt::format("tree {}: node {} beyond the tree's end {}", t, i, end));
    const Forest::Node& n = f.nodes_[i];
    const int32_t d = level[i - tr.root];
    depth = std::max(depth, d);
    if (n.left == -1) continue;  // a leaf
    if (n.left < 0 || size_t(n.left) != claimed)
      return parse_error(fmt::format("tree {} node {}: children at {}, expected {}", t, i, n.left, claimed));
    if (n.feature() >= uint32_t(f.num_features_))
      return parse_error(fmt::format("tree {} node {}: feature {} >= {}", t, i, n.feature(), f.num_features_));
    claimed += 2;
    level.push_back(d + 1);
    level.push_back(d + 1);
  }
  if (claimed != end) return parse_error(fmt::format("tree {}: nodes {}..{} are not all reached", t, claimed, end));
  if (tr.depth != depth) return parse_error(fmt::format("tree {}: depth {}, its nodes give {}", t, tr.depth, depth));
  return Status::Ok();
}

Status CompactIO::validate_eager(const Forest& f) {
  const size_t T = f.trees_.size(), N = f.nodes_.size();
  const bool kernels_take = f.num_features_ <= detail::kMaxKernelFeatures;
  std::vector<int32_t> level;
  for (size_t t = 0; t < T; ++t) {
    const Forest::Tree& tr = f.trees_[t];
    const size_t end = t + 1 < T ? f.trees_[t + 1].root : N;
    if ((t == 0 && tr.root != 0) || tr.root >= end || end > N)
      return parse_error(fmt::format("tree {}: root {}, next tree's root {} ({} nodes)", t, tr.root, end, N));
    const int32_t depth = tr.depth;
    if (depth < 0 || f.depth_[t] != std::min(depth, 255))
      return parse_error(fmt::format("tree {}: depth {}, depth entry {}", t, depth, f.depth_[t]));
    if (f.set_first_[t] != detail::ForestView::kNone)
      return parse_error(fmt::format("tree {}: set_first {}: the file holds no `sets` layout (it is derived)", t,
                                     f.set_first_[t]));
    // The complete layout: 2^depth - 1 splits and 2^depth leaves in range;
    // a split's column offsets address the doubled row of F columns.
    const uint32_t split0 = f.full_split_[t];
    if (split0 == detail::ForestView::kNone || !kernels_take) {
      if (split0 != detail::ForestView::kNone)
        return parse_error(fmt::format("tree {}: a complete layout for a model of {} features", t, f.num_features_));
      GCONV_RETURN_IF_ERROR(check_nodes(f, t, level));  // the exact path reads them
      continue;
    }
    if (depth > detail::kMaxTraverseDepth)
      return parse_error(fmt::format("tree {}: a complete layout of depth {}", t, depth));
    const size_t inner = (size_t{1} << depth) - 1;
    if (split0 > f.full_nodes_.size() || inner > f.full_nodes_.size() - split0 ||
        f.full_leaf_[t] > f.full_value_.size() || inner + 1 > f.full_value_.size() - f.full_leaf_[t])
      return parse_error(fmt::format("tree {}: complete layout at {} / {} does not fit", t, split0, f.full_leaf_[t]));
    const uint32_t limit = std::max<uint32_t>(2 * uint32_t(f.num_features_) * detail::kFullSplitColumnScale, 1);
    for (size_t k = 0; k < inner; ++k) {
      const detail::FullSplit& s = f.full_nodes_[split0 + k];
      if (s.off2 >= limit || s.off1 >= std::max<uint32_t>(limit / 2, 1) || s.off1 % detail::kFullSplitColumnScale ||
          s.off2 % detail::kFullSplitColumnScale)
        return parse_error(
            fmt::format("tree {}: complete layout split {}: column offsets {} / {}", t, k, s.off1, s.off2));
    }
  }
  if (T == 0 && N != 0) return parse_error(fmt::format("{} nodes without a tree", N));
  if (!f.set_nodes_.empty()) return parse_error("set_nodes: the file holds no `sets` layout (it is derived)");
  return Status::Ok();
}

// The complete layout of tree `t` (when it has one) must be the tree its
// nodes hold, as the parser derives it (ForestBuilder::add_full_tree): a
// file whose checksum was made to match could otherwise carry two different
// trees, and selection (complete layout) and the `sets` kernel or the
// contributions (nodes) would give different margins for one model (found
// by tests/fuzz fuzz_model). Padding splits below a leaf are not compared:
// every leaf slot under them holds that leaf's value, which is.
Status CompactIO::check_full_layout(const Forest& f, size_t t) {
  const uint32_t split0 = f.full_split_[t];
  if (split0 == detail::ForestView::kNone) return Status::Ok();
  const Forest::Tree& tr = f.trees_[t];
  const int D = tr.depth;  // check_nodes: the nodes' own depth; validate_eager: the layout's size
  const uint32_t leaf0 = f.full_leaf_[t];
  const uint32_t F = uint32_t(f.num_features_);
  struct Item {
    uint32_t node, slot;
    int level;
  };
  std::vector<Item> stack = {{tr.root, 0, 0}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const Forest::Node& n = f.nodes_[it.node];
    if (n.leaf()) {
      const size_t first = size_t(it.slot - ((1u << it.level) - 1)) << (D - it.level);
      for (size_t k = 0; k < (size_t{1} << (D - it.level)); ++k)
        if (std::memcmp(&f.full_value_[leaf0 + first + k], &n.value, sizeof n.value) != 0)
          return parse_error(fmt::format("tree {}: complete layout leaf {} is {}, its node {} says {}", t, first + k,
                                         f.full_value_[leaf0 + first + k], it.node, n.value));
      continue;
    }
    const detail::FullSplit& s = f.full_nodes_[split0 + it.slot];
    const uint32_t off2 = (n.feature() + (n.default_left() ? 0 : F)) * detail::kFullSplitColumnScale;
    const uint32_t off1 = n.feature() * detail::kFullSplitColumnScale;
    if (s.off2 != off2 || s.off1 != off1 || s.key != detail::threshold_key(n.value, n.default_left()))
      return parse_error(fmt::format("tree {}: complete layout split {} does not match its node {}", t, it.slot,
                                     it.node));
    stack.push_back({uint32_t(n.left), 2 * it.slot + 1, it.level + 1});
    stack.push_back({uint32_t(n.right()), 2 * it.slot + 2, it.level + 1});
  }
  return Status::Ok();
}

// Every tree's nodes and their agreement with the complete layout, then
// (from them, by the parser's own function) the `sets` layout into `lazy`.
Status CompactIO::validate_lazy(const Forest& f, Forest::LazyCheck* lazy) {
  std::vector<int32_t> level;
  for (size_t t = 0; t < f.trees_.size(); ++t) {
    GCONV_RETURN_IF_ERROR(check_nodes(f, t, level));
    GCONV_RETURN_IF_ERROR(check_full_layout(f, t));
  }
  lazy->set_first.clear();
  lazy->set_nodes.clear();
  for (size_t t = 0; t < f.trees_.size(); ++t) {
    const size_t end = t + 1 < f.trees_.size() ? f.trees_[t + 1].root : f.nodes_.size();
    Forest::append_set_tree(f.nodes_.data(), f.trees_[t], end - f.trees_[t].root, f.num_features_, lazy->set_nodes,
                            lazy->set_first);
  }
  return Status::Ok();
}

Status Forest::write_compact(const std::string& path, uint64_t* checksum) const {
  return CompactIO::write(*this, path, checksum);
}

Result<Forest> Forest::load_compact(const std::string& path, int expected_features) {
  return CompactIO::load(path, expected_features);
}

bool Forest::structure_ok() const {
  if (!lazy_) return true;  // built by the parser: checked as it was built
  std::call_once(lazy_->once, [this] {
    const Status s = CompactIO::validate_lazy(*this, lazy_.get());
    lazy_->ok = s.ok();
    if (!s.ok())
      log_warn(lazy_->path + ": compact model: " + s.message() +
               "; its selections stay exact (complete layout), its `sets` evaluation and contributions are off");
  });
  return lazy_->ok;
}

}  // namespace gconv::heuristic
