// Problem specs: a compact one-line text form of a Problem.
//
// Grammar
// -------
//   spec   := [direction "_"] [dtype "_"] token ("_"? token)*
//   direction := "fwd" | "bwd_data" | "bwd_weight"        (default fwd)
//   dtype     := "bf16" | "fp16" | "fp32"                 (default bf16)
//   token  := key value            key: lowercase letters, value: [0-9,:]+
//
//   key  | meaning                                   | default
//   -----+-------------------------------------------+---------
//   n    | batch                                     | 1
//   c    | input channels, total over all groups     | required
//   k    | output channels, total over all groups    | required
//   g    | groups (C and K must be multiples of G)   | 1
//   d h w| input spatial sizes (D, H, W)             | required per ndim
//   z y x| filter sizes (Z, Y, X)                    | 1
//   s    | stride                                    | 1
//   p    | padding                                   | 0
//   dil  | dilation                                  | 1
//
// ndim is 3 if d or z is present, else 2 if h or y is present, else 1; the
// input sizes of every used dimension must be given (w always, h for 2D and
// 3D, d for 3D). s, p and dil take one value for every dimension or a comma
// list with one entry per dimension, outermost first ("s2,1" is stride_h 2,
// stride_w 1 in 2D). A padding entry is `v` (both sides) or `lo:hi`
// (asymmetric, e.g. "p0:1,0:1"); a single `lo:hi` applies to every dimension.
// Each key may appear once. Positions in error messages are 0-based character
// offsets into the spec.
//
// Canonical form (to_spec) spells every field, groups tokens with '_', prints a
// list whose entries are all equal as one value and a symmetric pad as one
// number:
//   fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1
//   bwd_weight_fp16_n8c64k64g1_d16h56w56_z3y3x3_s1,2,2_p1_dil1
//   fwd_bf16_n1c32k32g32_h112w112_y3x3_s2_p0:1_dil1
// parse_spec(to_spec(p)) == p for every valid Problem p. parse_spec checks
// syntax only (malformed tokens, missing sizes, list lengths, numbers that do
// not fit int64); the caller runs validate() for the semantic rules.
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gconv/problem.hpp"

namespace gconv {
namespace {

struct Token {
  std::string_view key;
  std::string_view value;
  size_t key_pos = 0;    // offset of the key's first character
  size_t value_pos = 0;  // offset of the value's first character
};

bool is_key_char(char ch) { return ch >= 'a' && ch <= 'z'; }
bool is_value_char(char ch) { return (ch >= '0' && ch <= '9') || ch == ',' || ch == ':'; }

std::string at(size_t pos) { return " at position " + std::to_string(pos); }

// One non-negative decimal integer that must fit int64 (no sign, no blanks).
Result<int64_t> parse_number(std::string_view text, std::string_view key, size_t pos) {
  if (text.empty()) return parse_error("empty number in '" + std::string(key) + "'" + at(pos));
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9')
      return parse_error("unexpected '" + std::string(1, text[i]) + "' in the value of '" + std::string(key) + "'" +
                         at(pos + i));
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range)
    return parse_error("value of '" + std::string(key) + "' (" + std::string(text) + ") overflows int64" + at(pos));
  if (ec != std::errc() || end != text.data() + text.size())
    return parse_error("bad number '" + std::string(text) + "' in '" + std::string(key) + "'" + at(pos));
  return v;
}

// A comma list; each entry a number, or `lo:hi` when allow_pair.
struct ListEntry { int64_t lo = 0, hi = 0; };
Result<std::vector<ListEntry>> parse_list(const Token& t, bool allow_pair) {
  std::vector<ListEntry> out;
  size_t start = 0;
  while (true) {
    size_t comma = t.value.find(',', start);
    std::string_view item = t.value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t item_pos = t.value_pos + start;
    if (item.empty()) return parse_error("empty list entry in '" + std::string(t.key) + "'" + at(item_pos));
    ListEntry e;
    size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      auto v = parse_number(item, t.key, item_pos);
      if (!v.ok()) return v.status();
      e.lo = e.hi = *v;
    } else {
      if (!allow_pair)
        return parse_error("'" + std::string(t.key) + "' does not take lo:hi pairs" + at(item_pos + colon));
      auto lo = parse_number(item.substr(0, colon), t.key, item_pos);
      if (!lo.ok()) return lo.status();
      auto hi = parse_number(item.substr(colon + 1), t.key, item_pos + colon + 1);
      if (!hi.ok()) return hi.status();
      e.lo = *lo;
      e.hi = *hi;
    }
    out.push_back(e);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

constexpr std::array<std::string_view, 13> kKeys = {"n", "c", "k", "g", "d", "h", "w", "z", "y", "x", "s", "p", "dil"};

size_t key_index(std::string_view key) {
  for (size_t i = 0; i < kKeys.size(); ++i)
    if (kKeys[i] == key) return i;
  return kKeys.size();
}

// Splits the token part into key/value tokens (syntax only).
Result<std::vector<Token>> tokenize(std::string_view s, size_t base) {
  std::vector<Token> tokens;
  size_t i = 0;
  bool after_sep = false;
  while (i < s.size()) {
    if (s[i] == '_') {
      // One '_' may separate two tokens; anything else is a stray separator.
      if (tokens.empty() || after_sep || i + 1 >= s.size()) return parse_error("unexpected '_'" + at(base + i));
      after_sep = true;
      ++i;
      continue;
    }
    after_sep = false;
    if (!is_key_char(s[i])) {
      if (is_value_char(s[i])) return parse_error("value without a key" + at(base + i));
      return parse_error("unexpected character '" + std::string(1, s[i]) + "'" + at(base + i));
    }
    Token t;
    t.key_pos = base + i;
    size_t j = i;
    while (j < s.size() && is_key_char(s[j])) ++j;
    t.key = s.substr(i, j - i);
    if (key_index(t.key) == kKeys.size()) return parse_error("unknown key '" + std::string(t.key) + "'" + at(t.key_pos));
    t.value_pos = base + j;
    size_t v = j;
    while (v < s.size() && is_value_char(s[v])) ++v;
    t.value = s.substr(j, v - j);
    if (t.value.empty()) {
      if (v < s.size() && s[v] != '_') return parse_error("unexpected character '" + std::string(1, s[v]) + "'" + at(base + v));
      return parse_error("key '" + std::string(t.key) + "' has no value" + at(t.key_pos));
    }
    tokens.push_back(t);
    i = v;
  }
  if (tokens.empty()) return parse_error("no size tokens" + at(base));
  return tokens;
}

// Printing helpers for to_spec.
std::string join_list(const int64_t* v, int count) {
  bool uniform = true;
  for (int i = 1; i < count; ++i) uniform = uniform && v[i] == v[0];
  if (uniform) return std::to_string(v[0]);
  std::string s;
  for (int i = 0; i < count; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string pad_entry(int64_t lo, int64_t hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + ":" + std::to_string(hi);
}

}  // namespace

std::string Problem::to_spec() const {
  const int nd = ndim < 1 ? 1 : (ndim > 3 ? 3 : ndim);
  const int f = 3 - nd;
  static const char* in_key[3] = {"d", "h", "w"};
  static const char* filt_key[3] = {"z", "y", "x"};
  std::string s = std::string(to_string(direction)) + "_" + to_string(dtype) + "_";
  s += "n" + std::to_string(n) + "c" + std::to_string(c) + "k" + std::to_string(k) + "g" + std::to_string(g) + "_";
  for (int i = f; i < 3; ++i) s += in_key[i] + std::to_string(in[i]);
  s += "_";
  for (int i = f; i < 3; ++i) s += filt_key[i] + std::to_string(filter[i]);
  s += "_s" + join_list(&stride[f], nd);
  bool pad_uniform = true;
  for (int i = f + 1; i < 3; ++i) pad_uniform = pad_uniform && pad_lo[i] == pad_lo[f] && pad_hi[i] == pad_hi[f];
  s += "_p";
  if (pad_uniform) {
    s += pad_entry(pad_lo[f], pad_hi[f]);
  } else {
    for (int i = f; i < 3; ++i) s += (i > f ? "," : "") + pad_entry(pad_lo[i], pad_hi[i]);
  }
  s += "_dil" + join_list(&dilation[f], nd);
  return s;
}

Result<Problem> Problem::parse_spec(std::string_view spec) {
  if (spec.empty()) return parse_error("empty spec");
  Problem p;
  size_t pos = 0;
  // Optional prefixes. "bwd_data_" and "bwd_weight_" must be tried before a
  // bare key scan, which would read "bwd" as an unknown key.
  auto eat = [&](std::string_view word) {
    if (spec.substr(pos, word.size()) == word && spec.size() > pos + word.size() && spec[pos + word.size()] == '_') {
      pos += word.size() + 1;
      return true;
    }
    return false;
  };
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    if (eat(to_string(d))) { p.direction = d; break; }
  for (DType t : {DType::bf16, DType::fp16, DType::fp32})
    if (eat(to_string(t))) { p.dtype = t; break; }

  auto tokens = tokenize(spec.substr(pos), pos);
  if (!tokens.ok()) return tokens.status();

  // Collect values by key (tokenize has checked the keys); each key once.
  std::array<std::optional<Token>, kKeys.size()> seen;
  for (const Token& t : *tokens) {
    const size_t idx = key_index(t.key);
    if (seen[idx]) return parse_error("duplicate key '" + std::string(t.key) + "'" + at(t.key_pos));
    seen[idx] = t;
  }
  // Only called with keys from kKeys.
  auto get = [&](std::string_view key) -> const std::optional<Token>& { return seen[key_index(key)]; };

  // Scalars.
  auto scalar = [&](std::string_view key, int64_t* dst) -> Status {
    const auto& t = get(key);
    if (!t) return Status::Ok();
    auto v = parse_number(t->value, t->key, t->value_pos);
    if (!v.ok()) return v.status();
    *dst = *v;
    return Status::Ok();
  };
  GCONV_RETURN_IF_ERROR(scalar("n", &p.n));
  GCONV_RETURN_IF_ERROR(scalar("c", &p.c));
  GCONV_RETURN_IF_ERROR(scalar("k", &p.k));
  GCONV_RETURN_IF_ERROR(scalar("g", &p.g));
  if (!get("c")) return parse_error("missing input channels c");
  if (!get("k")) return parse_error("missing output channels k");

  p.ndim = (get("d") || get("z")) ? 3 : (get("h") || get("y")) ? 2 : 1;
  static const char* in_key[3] = {"d", "h", "w"};
  static const char* filt_key[3] = {"z", "y", "x"};
  for (int i = p.first_slot(); i < 3; ++i) {
    if (!get(in_key[i])) return parse_error(std::string("missing input size ") + in_key[i]);
    GCONV_RETURN_IF_ERROR(scalar(in_key[i], &p.in[i]));
    GCONV_RETURN_IF_ERROR(scalar(filt_key[i], &p.filter[i]));
  }

  // Lists: one value for all used dims, or one entry per used dim.
  struct ListKey { std::string_view key; const char* what; bool pair; };
  for (ListKey lk : {ListKey{"s", "stride", false}, ListKey{"p", "padding", true}, ListKey{"dil", "dilation", false}}) {
    const auto& t = get(lk.key);
    if (!t) continue;
    auto list = parse_list(*t, lk.pair);
    if (!list.ok()) return list.status();
    const auto& v = *list;
    if (v.size() != 1 && v.size() != size_t(p.ndim))
      return parse_error(std::string(lk.what) + " list has " + std::to_string(v.size()) + " entries for a " +
                         std::to_string(p.ndim) + "D problem" + at(t->value_pos));
    for (int i = p.first_slot(); i < 3; ++i) {
      const ListEntry& e = v.size() == 1 ? v[0] : v[size_t(i - p.first_slot())];
      if (lk.key == "s") p.stride[i] = e.lo;
      if (lk.key == "dil") p.dilation[i] = e.lo;
      if (lk.key == "p") { p.pad_lo[i] = e.lo; p.pad_hi[i] = e.hi; }
    }
  }
  return p;
}

}  // namespace gconv
