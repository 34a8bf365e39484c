#include "perf/sweep_csv.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gconv/problem_file.hpp"
#include "problem/csv_text.hpp"
#include "problem/read_text.hpp"

namespace gconv::bench {
namespace {

const std::vector<std::string> kTraitColumns = {"tile_m", "tile_n",           "tile_k",  "warps_m", "warps_n",
                                                "stages", "split_mode",       "split_k", "vec",     "groups_per_block",
                                                "block_h", "block_w",         "per_thread", "deterministic"};
const std::vector<std::string> kTailColumns = {"provider", "gpu",    "gconv_version", "status", "latency_ms",
                                               "min_ms",   "tflops", "gbps",          "check"};

// The values of problem_csv_columns(), formatted as write_problem_csv does.
std::string problem_values(const Problem& p, const std::string& spec, const std::string& source) {
  std::string s = std::string(to_string(p.direction)) + "," + to_string(p.dtype) + "," + std::to_string(p.ndim) +
                  "," + std::to_string(p.n) + "," + std::to_string(p.c) + "," + std::to_string(p.k) + "," +
                  std::to_string(p.g);
  for (const auto* arr : {&p.in, &p.filter, &p.stride})
    for (int i = 0; i < 3; ++i) s += "," + std::to_string((*arr)[i]);
  for (int i = 0; i < 3; ++i) s += "," + std::to_string(p.pad_lo[i]) + "," + std::to_string(p.pad_hi[i]);
  for (int i = 0; i < 3; ++i) s += "," + std::to_string(p.dilation[i]);
  return s + "," + csv_field(spec) + "," + csv_field(source);
}

}  // namespace

std::string csv_field(const std::string& in) {
  std::string s = in;
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.find_first_of(",\"") == std::string::npos && (s.empty() || (s.front() != ' ' && s.back() != ' '))) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

const std::vector<std::string>& sweep_csv_columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c = {"kernel", "family"};
    c.insert(c.end(), kTraitColumns.begin(), kTraitColumns.end());
    c.insert(c.end(), problem_csv_columns().begin(), problem_csv_columns().end());
    c.insert(c.end(), kTailColumns.begin(), kTailColumns.end());
    return c;
  }();
  return cols;
}

std::string sweep_csv_header() {
  std::string h;
  for (const auto& c : sweep_csv_columns()) h += (h.empty() ? "" : ",") + c;
  return h;
}

std::string sweep_csv_row(const SweepRow& r, const std::string& gpu) {
  std::string s = csv_field(r.kernel) + ",";
  s += csv_field(!r.family.empty() ? r.family : r.traits ? std::string(to_string(r.traits->family)) : r.provider);
  if (r.traits) {
    // Fields of the other family are left empty (not the struct's defaults),
    // so a model reading the file sees "not applicable", not a fake tile.
    const KernelTraits& t = *r.traits;
    // igemm, wgmma and pw fill the GEMM columns (wgmma: warps_m = consumer
    // warpgroups, warps_n = groups_per_block = 1; pw: warps_m = warps,
    // warps_n = 1), direct and tinyc the block columns.
    const bool ig = has_gemm_tile(t.family);
    auto num = [&](bool used, int v) { s += "," + (used ? std::to_string(v) : std::string()); };
    for (int v : {t.tile_m, t.tile_n, t.tile_k, t.warps_m, t.warps_n, t.stages}) num(ig, v);
    s += "," + (ig ? std::string(to_string(t.split_mode)) : std::string());
    num(ig, t.split_k);
    num(true, t.vec);
    num(ig, t.groups_per_block);
    for (int v : {t.block_h, t.block_w, t.per_thread, int(t.deterministic)}) num(!ig, v);
  } else {
    s += std::string(kTraitColumns.size(), ',');
  }
  std::optional<Problem> p = r.problem;
  if (!p) {
    auto parsed = Problem::parse_spec(r.spec);
    if (parsed.ok()) p = *parsed;
  }
  if (p) {
    s += "," + problem_values(*p, r.spec, r.source);
  } else {  // unparsable spec: empty problem columns, spec and source kept
    s += std::string(problem_csv_columns().size() - 2, ',') + "," + csv_field(r.spec) + "," + csv_field(r.source);
  }
  char nums[160];
  std::snprintf(nums, sizeof nums, "%.6f,%.6f,%.3f,%.1f", r.median_ms, r.min_ms, r.tflops, r.gbps);
  return s + "," + csv_field(r.provider) + "," + csv_field(gpu) + "," + GCONV_VERSION + "," + r.status + "," + nums +
         "," + csv_field(r.check);
}


std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> f(1);
  bool q = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
      else if (c == '"') q = false;
      else f.back() += c;
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      f.emplace_back();
    } else if (c != '\r') {
      f.back() += c;
    }
  }
  return f;
}

int SweepTable::column(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return int(i);
  return -1;
}

const std::string& SweepTable::get(size_t i, const std::string& name) const {
  static const std::string empty;
  const int c = column(name);
  return c < 0 ? empty : rows[i][size_t(c)];
}

std::string SweepTable::where(size_t i) const {
  return name + ":" + (i < line_no.size() ? std::to_string(line_no[i]) : "?");
}

Status SkippedRows::add(const std::string& where, const std::string& why) {
  if (strict) return invalid_argument(where + ": " + why + " (--strict: invalid rows are errors)");
  if (count++ == 0) first = where + ": " + why;
  return Status::Ok();
}

std::string SkippedRows::summary() const {
  if (count == 0) return "";
  return std::to_string(count) + " rows of invalid problems skipped, the first: " + first;
}

Result<SweepTable> parse_sweep_csv(const std::string& raw_text, const std::string& name) {
  SweepTable t;
  t.name = name;
  auto text = problem_io::check_text_encoding(raw_text, name);
  if (!text.ok()) return text.status();
  int64_t no = 0;
  size_t start = 0;
  while (start < text->size()) {
    size_t nl = text->find('\n', start);
    if (nl == std::string_view::npos) nl = text->size();
    std::string line(text->substr(start, nl - start));
    start = nl + 1;
    ++no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto f = split_csv_line(line);
    if (t.header.empty()) {
      const std::string where = name + ":" + std::to_string(no);
      GCONV_RETURN_IF_ERROR(problem_io::check_header_names(f, sweep_csv_columns(), where));
      for (auto& h : f) {
        h = problem_io::normalize_column_name(h);
        if (!h.empty() && t.column(h) >= 0) return parse_error(where + ": duplicate column '" + h + "'");
        t.header.push_back(h);
      }
      continue;
    }
    if (f.size() != t.header.size())
      return parse_error(name + ":" + std::to_string(no) + ": " + std::to_string(f.size()) + " fields, header has " +
                         std::to_string(t.header.size()));
    t.rows.push_back(std::move(f));
    t.lines.push_back(line);
    t.line_no.push_back(no);
  }
  return t;
}

Result<SweepTable> read_sweep_csv(const std::string& path) {
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return text.status();
  return parse_sweep_csv(*text, path);
}

RowKey row_key(const SweepTable& t, size_t i) {
  return {t.get(i, "kernel"), t.get(i, "spec"), t.get(i, "provider")};
}

Status prepare_append(const std::string& path, const std::string& header, std::set<RowKey>* done,
                      size_t* dropped_bytes) {
  if (dropped_bytes) *dropped_bytes = 0;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  std::string text;
  if (exists) {
    // Only a regular file is read (a FIFO would block, a directory fails
    // later with a less clear message).
    if (!std::filesystem::is_regular_file(path, ec))
      return invalid_argument(path + ": not a regular file; --out needs a sweep CSV file (or a new path)");
    std::ifstream f(path, std::ios::binary);
    if (!f) return io_error(path + ": cannot read");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  // Nothing is changed before the file is known to be a sweep of this
  // version: its first line must be the header (or, for a run killed while
  // writing the header, a prefix of it).
  if (!text.empty()) {
    const size_t first_nl = text.find('\n');
    const std::string first = text.substr(0, first_nl);
    const bool torn_header = first_nl == std::string::npos && header.compare(0, first.size(), first) == 0;
    if (first != header && !torn_header)
      return invalid_argument(path + ": not a gconv sweep of this version (its first line is not the sweep header); "
                                     "the file was left untouched: write to a new file");
  }
  // A torn last line: everything after the last newline is a partial row.
  const size_t nl = text.rfind('\n');
  const size_t keep = nl == std::string::npos ? 0 : nl + 1;
  if (keep < text.size()) {
    if (dropped_bytes) *dropped_bytes = text.size() - keep;
    std::filesystem::resize_file(path, keep, ec);
    if (ec) return io_error(path + ": cannot truncate torn last line: " + ec.message());
    text.resize(keep);
  }
  if (text.empty()) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << header << "\n";
    f.flush();
    if (!f) return io_error(path + ": cannot write");
    return Status::Ok();
  }
  auto table = parse_sweep_csv(text, path);
  if (!table.ok()) return table.status();
  for (size_t i = 0; i < table->rows.size(); ++i) done->insert(row_key(*table, i));
  return Status::Ok();
}

RowWriter::~RowWriter() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

Status RowWriter::open(const std::string& path) {
  if (path.empty() || path == "-") {
    fd_ = STDOUT_FILENO;
    owned_ = false;
    return Status::Ok();
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return io_error(path + ": " + std::strerror(errno));
  owned_ = true;
  return Status::Ok();
}

Status RowWriter::write_line(const std::string& line) {
  const std::string s = line + "\n";
  size_t off = 0;
  while (off < s.size()) {  // one write in practice; loop only on a short write
    const ssize_t n = ::write(fd_, s.data() + off, s.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(std::string("write: ") + std::strerror(errno));
    }
    off += size_t(n);
  }
  return Status::Ok();
}

}  // namespace gconv::bench
