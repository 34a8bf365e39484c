// Problem sets from CSV, JSON lines and plain-text files (format and schema in
// include/gconv/problem_file.hpp). Every row becomes a validated Problem; the
// first bad row fails the read with "<path>:<line>: <field>: <why>".
#include "gconv/problem_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#if defined(__unix__)
#include <dlfcn.h>
#endif

#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "problem/csv_text.hpp"
#include "problem/read_text.hpp"

namespace gconv {
namespace {

using json = nlohmann::json;

enum class Format { csv, jsonl, text };

const std::vector<std::string> kColumns = {
    "direction", "dtype",    "ndim",     "n",        "c",        "k",        "g",     "d",     "h",
    "w",         "z",        "y",        "x",        "stride_d", "stride_h", "stride_w", "pad_d_lo", "pad_d_hi",
    "pad_h_lo",  "pad_h_hi", "pad_w_lo", "pad_w_hi", "dil_d",    "dil_h",    "dil_w", "spec",  "source"};

// Header names of the reference system's problem and sweep CSVs (tile_engine:
// "kernel, problem_idx, N, C, K, G, [Di,] Hi, Wi, [Z,] Y, X, [stride_d,]
// stride_h, stride_w, [pad_d,] pad_h, pad_w, [dilation_*,] latency_ms, ..."),
// read as the gconv columns they mean, so its users can bring their problem
// sets. Its pads are symmetric: one column gives both lo and hi. N, C, K, G,
// Z, Y, X and stride_* are gconv's own names already (case-insensitive).
const std::map<std::string, std::vector<std::string>>& column_aliases() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"di", {"d"}},
      {"hi", {"h"}},
      {"wi", {"w"}},
      {"pad_d", {"pad_d_lo", "pad_d_hi"}},
      {"pad_h", {"pad_h_lo", "pad_h_hi"}},
      {"pad_w", {"pad_w_lo", "pad_w_hi"}},
      {"dilation_d", {"dil_d"}},
      {"dilation_h", {"dil_h"}},
      {"dilation_w", {"dil_w"}},
  };
  return m;
}

// Every header name the CSV reader knows: the columns and their aliases.
const std::vector<std::string>& known_header_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = kColumns;
    for (const auto& [alias, cols] : column_aliases()) v.push_back(alias);
    return v;
  }();
  return names;
}

// Columns that describe the problem itself (as opposed to spec / source).
bool is_structural(const std::string& col) {
  return col != "spec" && col != "source" && col != "direction" && col != "dtype";
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool skip_line(const std::string& t) { return t.empty() || t[0] == '#'; }

// Lines with their 1-based numbers; handles \n and \r\n.
std::vector<std::pair<int64_t, std::string>> split_lines(std::string_view text) {
  std::vector<std::pair<int64_t, std::string>> lines;
  size_t start = 0;
  int64_t no = 1;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string::npos ? text.size() : nl;
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.emplace_back(no++, std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

// One CSV record (RFC 4180 quoting, no embedded newlines).
Result<std::vector<std::string>> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  size_t i = 0;
  bool quoted_field = false;
  while (true) {
    if (i < line.size() && line[i] == '"' && trim(cur).empty()) {
      quoted_field = true;
      cur.clear();
      ++i;
      while (true) {
        if (i >= line.size()) return parse_error("unterminated quoted field");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        cur += line[i++];
      }
      while (i < line.size() && line[i] != ',') {
        if (!std::isspace(static_cast<unsigned char>(line[i])))
          return parse_error("unexpected text after a quoted field");
        ++i;
      }
    }
    if (i >= line.size() || line[i] == ',') {
      fields.push_back(quoted_field ? cur : trim(cur));
      cur.clear();
      quoted_field = false;
      if (i >= line.size()) break;
      ++i;
      continue;
    }
    cur += line[i++];
  }
  return fields;
}

// Looks up a cell by column/key name; nullopt when absent or empty.
using CellFn = std::function<Result<std::optional<std::string>>(const std::string&)>;

Result<std::optional<int64_t>> cell_int(const CellFn& cell, const std::string& col, const char* what) {
  auto v = cell(col);
  if (!v.ok()) return v.status();
  if (!*v) return std::optional<int64_t>();
  const std::string& s = **v;
  int64_t out = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [end, ec] = std::from_chars(b, e, out);
  if (ec == std::errc::result_out_of_range)
    return parse_error(std::string(what) + " '" + col + "': " + s + " overflows int64");
  if (ec != std::errc() || end != e || b == e)
    return parse_error(std::string(what) + " '" + col + "': '" + s + "' is not an integer");
  return std::optional<int64_t>(out);
}

// Builds a Problem from the CSV schema; `what` is "column" or "key".
Result<Problem> problem_from_cells(const CellFn& cell, const char* what) {
  static const char* kDim[3] = {"d", "h", "w"};
  static const char* kFilt[3] = {"z", "y", "x"};
  auto has = [&](const std::string& col) -> Result<bool> {
    auto v = cell(col);
    if (!v.ok()) return v.status();
    return v->has_value();
  };
  bool any_structural = false;
  for (const auto& col : kColumns) {
    if (!is_structural(col)) continue;
    auto h = has(col);
    if (!h.ok()) return h.status();
    any_structural = any_structural || *h;
  }
  auto spec_cell = cell("spec");
  if (!spec_cell.ok()) return spec_cell.status();

  std::optional<Problem> from_spec;
  if (*spec_cell) {
    auto p = Problem::parse_spec(**spec_cell);
    if (!p.ok()) return parse_error(std::string(what) + " 'spec': " + p.status().message());
    from_spec = *p;
  }
  Problem p;
  if (from_spec) p = *from_spec;

  // direction / dtype cells apply to both forms.
  for (const char* col : {"direction", "dtype"}) {
    auto v = cell(col);
    if (!v.ok()) return v.status();
    if (!*v) continue;
    if (std::string(col) == "direction") {
      auto d = parse_direction(**v);
      if (!d.ok()) return parse_error(std::string(what) + " 'direction': unknown name '" + **v + "'");
      p.direction = *d;
    } else {
      auto t = parse_dtype(**v);
      if (!t.ok()) return parse_error(std::string(what) + " 'dtype': unknown name '" + **v + "'");
      p.dtype = *t;
    }
  }
  if (from_spec && !any_structural) return p;
  if (!any_structural) return parse_error("no problem: neither a spec nor the size columns are given");

  Problem q;  // from the structural columns
  q.direction = p.direction;
  q.dtype = p.dtype;
  auto ndim = cell_int(cell, "ndim", what);
  if (!ndim.ok()) return ndim.status();
  if (*ndim) {
    if (**ndim < 1 || **ndim > 3)
      return parse_error(std::string(what) + " 'ndim': " + std::to_string(**ndim) + " is not 1, 2 or 3");
    q.ndim = int(**ndim);
  } else {
    bool d = false, h = false;
    for (const char* col : {"d", "z"}) {
      auto x = has(col);
      if (!x.ok()) return x.status();
      d = d || *x;
    }
    for (const char* col : {"h", "y"}) {
      auto x = has(col);
      if (!x.ok()) return x.status();
      h = h || *x;
    }
    q.ndim = d ? 3 : h ? 2 : 1;
  }
  // Scalars: required ones must be present.
  struct Scalar { const char* col; int64_t* dst; bool required; };
  for (Scalar s : {Scalar{"n", &q.n, false}, Scalar{"c", &q.c, true}, Scalar{"k", &q.k, true},
                   Scalar{"g", &q.g, false}}) {
    auto v = cell_int(cell, s.col, what);
    if (!v.ok()) return v.status();
    if (*v) *s.dst = **v;
    else if (s.required) return parse_error(std::string("missing ") + what + " '" + s.col + "'");
  }
  // Per-dimension values; an unused dimension may only hold the neutral value.
  for (int i = 0; i < 3; ++i) {
    const bool used = i >= q.first_slot();
    struct Dim { std::string col; int64_t* dst; int64_t neutral; bool required; };
    const std::string sfx = std::string("_") + kDim[i];
    const Dim dims[] = {{kDim[i], &q.in[i], 1, true},
                        {kFilt[i], &q.filter[i], 1, false},
                        {"stride" + sfx, &q.stride[i], 1, false},
                        {"pad" + sfx + "_lo", &q.pad_lo[i], 0, false},
                        {"pad" + sfx + "_hi", &q.pad_hi[i], 0, false},
                        {"dil" + sfx, &q.dilation[i], 1, false}};
    for (const Dim& dm : dims) {
      auto v = cell_int(cell, dm.col, what);
      if (!v.ok()) return v.status();
      if (!used) {
        if (*v && **v != dm.neutral)
          return parse_error(std::string(what) + " '" + dm.col + "': " + std::to_string(**v) + " given for a " +
                             std::to_string(q.ndim) + "D problem (must be empty or " + std::to_string(dm.neutral) +
                             ")");
        continue;
      }
      if (*v) *dm.dst = **v;
      else if (dm.required) return parse_error(std::string("missing ") + what + " '" + dm.col + "'");
    }
  }
  // p is the spec with the direction / dtype overrides, as q is.
  if (from_spec && !(p == q))
    return parse_error(std::string(what) + " 'spec': '" + **spec_cell + "' does not match the other columns (" +
                       q.to_spec() + ")");
  return q;
}

// Prefixes "<name>:<line>: " to a status, keeping its code.
Status at_line(const std::string& name, int64_t line, const Status& s) {
  return Status(s.code(), name + ":" + std::to_string(line) + ": " + s.message());
}

Status check(const std::string& name, int64_t line, const Problem& p) {
  Status s = p.validate();
  return s.ok() ? s : at_line(name, line, s);
}

Format pick_format(const std::string& name, const std::vector<std::pair<int64_t, std::string>>& lines) {
  const std::string base = lower(problem_io::strip_compression_suffix(name));
  if (ends_with(base, ".csv")) return Format::csv;
  if (ends_with(base, ".jsonl") || ends_with(base, ".ndjson") || ends_with(base, ".json")) return Format::jsonl;
  if (ends_with(base, ".txt") || ends_with(base, ".spec") || ends_with(base, ".specs")) return Format::text;
  for (const auto& [no, raw] : lines) {
    std::string t = trim(raw);
    if (skip_line(t)) continue;
    if (t[0] == '{') return Format::jsonl;
    auto fields = split_csv(t);
    if (fields.ok())
      for (const auto& f : *fields)
        if (const auto& known = known_header_names();
            std::find(known.begin(), known.end(), problem_io::normalize_column_name(f)) != known.end())
          return Format::csv;
    return Format::text;
  }
  return Format::text;
}

Result<std::vector<ProblemEntry>> read_csv(const std::string& name,
                                           const std::vector<std::pair<int64_t, std::string>>& lines) {
  std::vector<ProblemEntry> out;
  std::vector<std::string> header;
  std::map<std::string, size_t> index;
  for (const auto& [no, raw] : lines) {
    if (skip_line(trim(raw))) continue;
    auto fields = split_csv(raw);
    if (!fields.ok()) return at_line(name, no, fields.status());
    if (header.empty()) {
      header = *fields;
      GCONV_RETURN_IF_ERROR(
          problem_io::check_header_names(header, known_header_names(), name + ":" + std::to_string(no)));
      std::map<std::string, std::string> given_as;  // column -> the header name that set it
      for (size_t i = 0; i < header.size(); ++i) {
        const std::string raw = problem_io::normalize_column_name(header[i]);
        if (raw.empty()) continue;
        const auto alias = column_aliases().find(raw);
        const std::vector<std::string> cols = alias == column_aliases().end() ? std::vector<std::string>{raw}
                                                                             : alias->second;
        for (const std::string& col : cols) {
          if (auto it = given_as.find(col); it != given_as.end())
            return at_line(name, no,
                           parse_error(it->second == raw ? "duplicate column '" + col + "'"
                                                         : "columns '" + it->second + "' and '" + raw +
                                                               "' both give '" + col + "'"));
          given_as[col] = raw;
          index[col] = i;
        }
      }
      continue;
    }
    if (fields->size() != header.size())
      return at_line(name, no,
                     parse_error(std::to_string(fields->size()) + " fields, the header has " +
                                 std::to_string(header.size())));
    const auto& row = *fields;
    CellFn cell = [&](const std::string& col) -> Result<std::optional<std::string>> {
      auto it = index.find(col);
      if (it == index.end() || row[it->second].empty()) return std::optional<std::string>();
      return std::optional<std::string>(row[it->second]);
    };
    auto p = problem_from_cells(cell, "column");
    if (!p.ok()) return at_line(name, no, p.status());
    GCONV_RETURN_IF_ERROR(check(name, no, *p));
    ProblemEntry e{*p, "", no};
    if (auto it = index.find("source"); it != index.end()) e.source = row[it->second];
    out.push_back(std::move(e));
  }
  if (header.empty()) return parse_error(name + ": no header line");
  return out;
}

// JSON integer (or integer-valued string) to int64.
Result<int64_t> json_int(const json& v, const std::string& key) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
      return parse_error("key '" + key + "': " + v.dump() + " overflows int64");
    return v.get<int64_t>();
  }
  return parse_error("key '" + key + "': " + v.dump() + " is not an integer");
}

// The cuDNN benchmark layout: nd, N, C, K, G, spatial[], kernel[], ...
Result<Problem> problem_from_cudnn_json(const json& o) {
  Problem p;
  auto get_int = [&](const char* key, int64_t* dst, bool required) -> Status {
    if (!o.contains(key)) return required ? parse_error(std::string("missing key '") + key + "'") : Status::Ok();
    auto v = json_int(o[key], key);
    if (!v.ok()) return v.status();
    *dst = *v;
    return Status::Ok();
  };
  int64_t nd = 0;
  GCONV_RETURN_IF_ERROR(get_int("nd", &nd, false));
  if (nd == 0) {
    if (!o.contains("spatial") || !o["spatial"].is_array()) return parse_error("missing key 'nd'");
    nd = int64_t(o["spatial"].size());
  }
  if (nd < 1 || nd > 3) return parse_error("key 'nd': " + std::to_string(nd) + " is not 1, 2 or 3");
  p.ndim = int(nd);
  GCONV_RETURN_IF_ERROR(get_int("N", &p.n, false));
  GCONV_RETURN_IF_ERROR(get_int("C", &p.c, true));
  GCONV_RETURN_IF_ERROR(get_int("K", &p.k, true));
  GCONV_RETURN_IF_ERROR(get_int("G", &p.g, false));
  const int f = p.first_slot();
  struct Arr { const char* key; bool required; };
  for (Arr a : {Arr{"spatial", true}, Arr{"kernel", false}, Arr{"stride", false}, Arr{"pad", false},
                Arr{"dil", false}}) {
    const std::string key = a.key;
    if (!o.contains(key) || o[key].is_null()) {
      if (a.required) return parse_error("missing key '" + key + "'");
      continue;
    }
    const json& v = o[key];
    if (!v.is_array()) return parse_error("key '" + key + "': expected an array");
    if (v.size() != size_t(nd))
      return parse_error("key '" + key + "': " + std::to_string(v.size()) + " entries for a " + std::to_string(nd) +
                         "D problem");
    for (int i = 0; i < nd; ++i) {
      const json& e = v[size_t(i)];
      const int slot = f + i;
      if (key == "pad" && e.is_array()) {
        if (e.size() != 2) return parse_error("key 'pad': entry " + e.dump() + " is not [lo, hi]");
        auto lo = json_int(e[0], key), hi = json_int(e[1], key);
        if (!lo.ok()) return lo.status();
        if (!hi.ok()) return hi.status();
        p.pad_lo[slot] = *lo;
        p.pad_hi[slot] = *hi;
        continue;
      }
      auto x = json_int(e, key);
      if (!x.ok()) return x.status();
      if (key == "spatial") p.in[slot] = *x;
      if (key == "kernel") p.filter[slot] = *x;
      if (key == "stride") p.stride[slot] = *x;
      if (key == "dil") p.dilation[slot] = *x;
      if (key == "pad") p.pad_lo[slot] = p.pad_hi[slot] = *x;
    }
  }
  for (const char* key : {"direction", "dtype"}) {
    if (!o.contains(key) || o[key].is_null()) continue;
    if (!o[key].is_string()) return parse_error(std::string("key '") + key + "': expected a string");
    const std::string s = o[key].get<std::string>();
    if (std::string(key) == "direction") {
      auto d = parse_direction(s);
      if (!d.ok()) return parse_error("key 'direction': unknown name '" + s + "'");
      p.direction = *d;
    } else {
      auto t = parse_dtype(s);
      if (!t.ok()) return parse_error("key 'dtype': unknown name '" + s + "'");
      p.dtype = *t;
    }
  }
  return p;
}

Result<std::vector<ProblemEntry>> read_jsonl(const std::string& name,
                                             const std::vector<std::pair<int64_t, std::string>>& lines) {
  std::vector<ProblemEntry> out;
  for (const auto& [no, raw] : lines) {
    const std::string t = trim(raw);
    if (skip_line(t)) continue;
    if (Status d = check_json_depth(t, "line"); !d.ok()) return at_line(name, no, d);
    json o = json::parse(t, nullptr, /*allow_exceptions=*/false);
    if (o.is_discarded()) return at_line(name, no, parse_error("not valid JSON"));
    if (!o.is_object()) return at_line(name, no, parse_error("expected a JSON object"));
    if (o.contains("about")) continue;
    Result<Problem> p = Status();
    if (o.contains("nd") || o.contains("spatial")) {
      p = problem_from_cudnn_json(o);
    } else {
      CellFn cell = [&](const std::string& key) -> Result<std::optional<std::string>> {
        if (!o.contains(key) || o[key].is_null()) return std::optional<std::string>();
        const json& v = o[key];
        if (v.is_string()) {
          std::string s = trim(v.get<std::string>());
          return s.empty() ? std::optional<std::string>() : std::optional<std::string>(s);
        }
        if (v.is_number_integer()) return std::optional<std::string>(v.dump());
        return parse_error("key '" + key + "': " + v.dump() + " is not an integer or a string");
      };
      p = problem_from_cells(cell, "key");
    }
    if (!p.ok()) return at_line(name, no, p.status());
    GCONV_RETURN_IF_ERROR(check(name, no, *p));
    ProblemEntry e{*p, "", no};
    if (o.contains("source")) {
      if (!o["source"].is_string()) return at_line(name, no, parse_error("key 'source': expected a string"));
      e.source = o["source"].get<std::string>();
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<ProblemEntry>> read_text(const std::string& name,
                                            const std::vector<std::pair<int64_t, std::string>>& lines) {
  std::vector<ProblemEntry> out;
  for (const auto& [no, raw] : lines) {
    const std::string t = trim(raw);
    if (skip_line(t)) continue;
    size_t sp = 0;
    while (sp < t.size() && !std::isspace(static_cast<unsigned char>(t[sp]))) ++sp;
    auto p = Problem::parse_spec(std::string_view(t).substr(0, sp));
    if (!p.ok()) return at_line(name, no, parse_error("spec: " + p.status().message()));
    GCONV_RETURN_IF_ERROR(check(name, no, *p));
    out.push_back(ProblemEntry{*p, trim(std::string_view(t).substr(sp)), no});
  }
  return out;
}

std::string csv_quote(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  if (s.find_first_of(",\"") == std::string::npos && trim(s) == s) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

}  // namespace

const std::vector<std::string>& problem_csv_columns() { return kColumns; }

Result<std::vector<ProblemEntry>> parse_problem_text(const std::string& text, const std::string& name) {
  auto checked = problem_io::check_text_encoding(text, name);
  if (!checked.ok()) return checked.status();
  const auto lines = split_lines(*checked);
  switch (pick_format(name, lines)) {
    case Format::csv: return read_csv(name, lines);
    case Format::jsonl: return read_jsonl(name, lines);
    case Format::text: return read_text(name, lines);
  }
  return internal_error("unknown problem file format");
}

Result<std::vector<ProblemEntry>> read_problem_file(const std::string& path) {
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return text.status();
  return parse_problem_text(*text, path);
}

Status write_problem_csv(const std::string& path, const std::vector<ProblemEntry>& entries) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return io_error(path + ": cannot open for writing");
  for (size_t i = 0; i < kColumns.size(); ++i) f << (i ? "," : "") << kColumns[i];
  f << "\n";
  for (const auto& e : entries) {
    const Problem& p = e.problem;
    f << to_string(p.direction) << ',' << to_string(p.dtype) << ',' << p.ndim << ',' << p.n << ',' << p.c << ','
      << p.k << ',' << p.g;
    for (int i = 0; i < 3; ++i) f << ',' << p.in[i];
    for (int i = 0; i < 3; ++i) f << ',' << p.filter[i];
    for (int i = 0; i < 3; ++i) f << ',' << p.stride[i];
    for (int i = 0; i < 3; ++i) f << ',' << p.pad_lo[i] << ',' << p.pad_hi[i];
    for (int i = 0; i < 3; ++i) f << ',' << p.dilation[i];
    f << ',' << csv_quote(p.to_spec()) << ',' << csv_quote(e.source) << "\n";
  }
  f.flush();
  if (!f) return io_error(path + ": write failed");
  return Status::Ok();
}

namespace {

// An installed library (<prefix>/lib/libgconv.so) finds the problem sets
// installed beside its configs (<prefix>/share/gconv/problems), from where
// the loader found it, as config_dir() does (src/pool/arch_rules.cpp);
// GCONV_CONFIG_DIR_FROM_LIB is the configs folder relative to the library's.
std::string installed_problem_dir() {
#if defined(GCONV_CONFIG_DIR_FROM_LIB) && defined(__unix__)
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&installed_problem_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const std::filesystem::path dir =
      (std::filesystem::path(info.dli_fname).parent_path() / GCONV_CONFIG_DIR_FROM_LIB).parent_path() / "problems";
  if (!std::filesystem::is_directory(dir, ec)) return {};
  return dir.lexically_normal().string();
#else
  return {};
#endif
}

}  // namespace

std::string default_problem_dir() {
  if (const char* env = std::getenv("GCONV_PROBLEMS_DIR"); env && *env) return env;
  static const std::string installed = installed_problem_dir();  // the library does not move
  if (!installed.empty()) return installed;
#ifdef GCONV_SOURCE_DIR
  std::error_code ec;
  const std::string dir = std::string(GCONV_SOURCE_DIR) + "/problems";
  if (std::filesystem::is_directory(dir, ec)) return dir;
#endif
  return "";
}

}  // namespace gconv
