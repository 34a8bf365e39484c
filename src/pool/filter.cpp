// The filter language (grammar in filter.hpp): a lexer, a recursive-descent
// parser that resolves and type-checks every comparison at parse time, and a
// tree evaluator. Evaluation cannot fail, so a parsed Filter is safe to run
// over whole pools.
#include "pool/filter.hpp"

#include <cctype>
#include <cstdint>
#include <functional>

#include <fmt/format.h>

namespace gconv {
namespace {

// ---- fields -----------------------------------------------------------------

struct FieldDef {
  const char* name;
  std::vector<std::string> values;  // empty: an integer field; else the enum's names by value
  std::function<int64_t(const ArchRules&, const KernelTraits&)> get;
};

// The GEMM tile fields apply to both implicit-GEMM families (igemm, wgmma)
// and to the pointwise GEMM (pw: tile_*, warps_m, stages).
bool is_gemm(const KernelTraits& t) { return has_gemm_tile(t.family); }

const std::vector<FieldDef>& fields() {
  static const std::vector<FieldDef> defs = [] {
    using R = const ArchRules&;
    using T = const KernelTraits&;
    auto ig = [](int KernelTraits::*m) {
      return [m](R, T t) -> int64_t { return is_gemm(t) ? t.*m : 0; };
    };
    auto dr = [](int KernelTraits::*m) {
      return [m](R, T t) -> int64_t { return is_gemm(t) ? 0 : t.*m; };
    };
    std::vector<FieldDef> d;
    d.push_back({"tile_m", {}, ig(&KernelTraits::tile_m)});
    d.push_back({"tile_n", {}, ig(&KernelTraits::tile_n)});
    d.push_back({"tile_k", {}, ig(&KernelTraits::tile_k)});
    d.push_back({"warps_m", {}, ig(&KernelTraits::warps_m)});
    d.push_back({"warps_n", {}, ig(&KernelTraits::warps_n)});
    d.push_back({"stages", {}, ig(&KernelTraits::stages)});
    d.push_back({"split_k", {}, ig(&KernelTraits::split_k)});
    d.push_back({"split_mode", {"none", "parallel", "serial", "cluster"},
                 [](R, T t) -> int64_t { return is_gemm(t) ? static_cast<int64_t>(t.split_mode) : 0; }});
    d.push_back({"vec", {}, [](R, T t) -> int64_t { return t.vec; }});
    d.push_back({"groups_per_block", {}, ig(&KernelTraits::groups_per_block)});
    d.push_back({"packed", {"false", "true"}, [](R, T t) -> int64_t { return t.packed ? 1 : 0; }});  // igemm only
    d.push_back({"realign", {"false", "true"}, [](R, T t) -> int64_t { return t.realign ? 1 : 0; }});  // igemm, wgmma
    // Enum names by value: Family is {igemm, direct, wgmma, tinyc, pw}.
    d.push_back({"family", {"igemm", "direct", "wgmma", "tinyc", "pw"}, [](R, T t) -> int64_t { return static_cast<int64_t>(t.family); }});
    d.push_back({"ndim", {}, [](R, T t) -> int64_t { return t.ndim; }});
    d.push_back({"direction", {"fwd", "bwd_data", "bwd_weight"},
                 [](R, T t) -> int64_t { return static_cast<int64_t>(t.direction); }});
    d.push_back({"dtype", {"bf16", "fp16", "fp32"}, [](R, T t) -> int64_t { return static_cast<int64_t>(t.dtype); }});
    d.push_back({"block_h", {}, dr(&KernelTraits::block_h)});
    d.push_back({"block_w", {}, dr(&KernelTraits::block_w)});
    d.push_back({"per_thread", {}, dr(&KernelTraits::per_thread)});
    d.push_back({"deterministic", {"false", "true"},
                 [](R, T t) -> int64_t { return !is_gemm(t) && t.deterministic ? 1 : 0; }});
    d.push_back({"window_w", {}, dr(&KernelTraits::win_fx)});  // 0: a tile kernel
    d.push_back({"window_s", {}, dr(&KernelTraits::win_sx)});
    d.push_back({"tma", {"false", "true"},
                 [](R, T t) -> int64_t { return t.tma ? 1 : 0; }});  // canonical: wgmma and window kernels only
    d.push_back({"threads", {}, [](R, T t) -> int64_t { return t.threads(); }});
    d.push_back({"warp_tile_m", {}, [](R, T t) -> int64_t { return is_gemm(t) && t.warps_m > 0 ? t.tile_m / t.warps_m : 0; }});
    d.push_back({"warp_tile_n", {}, [](R, T t) -> int64_t { return is_gemm(t) && t.warps_n > 0 ? t.tile_n / t.warps_n : 0; }});
    d.push_back({"smem_bytes", {}, [](R r, T t) -> int64_t { return smem_bytes(r, t); }});
    d.push_back({"registers", {}, [](R r, T t) -> int64_t { return register_estimate(r, t); }});
    return d;
  }();
  return defs;
}

int find_field(std::string_view name) {
  const auto& f = fields();
  for (size_t i = 0; i < f.size(); ++i) {
    if (name == f[i].name) return static_cast<int>(i);
  }
  return -1;
}

// ---- lexer ------------------------------------------------------------------

enum class Tok { ident, integer, cmp, and_, or_, not_, lparen, rparen, end };
enum class Cmp { eq, ne, lt, le, gt, ge };

struct Token {
  Tok kind;
  std::string text;
  int column;  // 1-based
  int64_t value = 0;
  Cmp cmp = Cmp::eq;
};

Status error_at(int column, const std::string& what) {
  return parse_error(fmt::format("filter: {} at column {}", what, column));
}

Result<std::vector<Token>> lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    int col = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Tok::ident, std::string(s.substr(i, j - i)), col});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > 18) return error_at(col, "integer too large");
      Token t{Tok::integer, std::string(s.substr(i, j - i)), col};
      t.value = std::stoll(t.text);
      out.push_back(t);
      i = j;
      continue;
    }
    auto two = s.substr(i, 2);
    auto push = [&](Tok k, size_t len, Cmp cmp = Cmp::eq) {
      Token t{k, std::string(s.substr(i, len)), col};
      t.cmp = cmp;
      out.push_back(t);
      i += len;
    };
    if (two == "==") { push(Tok::cmp, 2, Cmp::eq); continue; }
    if (two == "!=") { push(Tok::cmp, 2, Cmp::ne); continue; }
    if (two == "<=") { push(Tok::cmp, 2, Cmp::le); continue; }
    if (two == ">=") { push(Tok::cmp, 2, Cmp::ge); continue; }
    if (two == "&&") { push(Tok::and_, 2); continue; }
    if (two == "||") { push(Tok::or_, 2); continue; }
    if (c == '<') { push(Tok::cmp, 1, Cmp::lt); continue; }
    if (c == '>') { push(Tok::cmp, 1, Cmp::gt); continue; }
    if (c == '!') { push(Tok::not_, 1); continue; }
    if (c == '(') { push(Tok::lparen, 1); continue; }
    if (c == ')') { push(Tok::rparen, 1); continue; }
    if (c == '=') return error_at(col, "unexpected '=' (use '==')");
    if (c == '&') return error_at(col, "unexpected '&' (use '&&')");
    if (c == '|') return error_at(col, "unexpected '|' (use '||')");
    return error_at(col, fmt::format("unexpected character '{}'", c));
  }
  out.push_back({Tok::end, "", static_cast<int>(s.size()) + 1});
  return out;
}

}  // namespace

// ---- tree -------------------------------------------------------------------

struct Filter::Node {
  enum Kind { or_, and_, not_, compare, bool_field } kind = compare;
  std::shared_ptr<const Node> a, b;
  // compare: each side is a field (index >= 0) or a constant.
  Cmp cmp = Cmp::eq;
  int lhs_field = -1, rhs_field = -1;
  int64_t lhs_value = 0, rhs_value = 0;
};

namespace {

using NodeP = std::shared_ptr<const Filter::Node>;

std::shared_ptr<Filter::Node> make_node(Filter::Node::Kind kind, NodeP a = nullptr, NodeP b = nullptr) {
  auto n = std::make_shared<Filter::Node>();
  n->kind = kind;
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}

// An operand before resolution: a field, an integer, or a name whose meaning
// depends on the field on the other side.
struct Operand {
  enum { field, integer, name } kind;
  int field_index = -1;
  int64_t value = 0;
  std::string text;
  int column = 0;
};

constexpr size_t kMaxFilterTokens = 4096;
constexpr int kMaxFilterDepth = 64;

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

  Result<NodeP> parse() {
    auto e = parse_or();
    if (!e.ok()) return e;
    if (peek().kind != Tok::end) return error_at(peek().column, fmt::format("unexpected '{}'", peek().text));
    return e;
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_++]; }

  Result<NodeP> parse_or() {
    auto lhs = parse_and();
    if (!lhs.ok()) return lhs;
    NodeP node = *lhs;
    while (peek().kind == Tok::or_) {
      next();
      auto rhs = parse_and();
      if (!rhs.ok()) return rhs;
      node = make_node(Filter::Node::or_, node, *rhs);
    }
    return node;
  }

  Result<NodeP> parse_and() {
    auto lhs = parse_unary();
    if (!lhs.ok()) return lhs;
    NodeP node = *lhs;
    while (peek().kind == Tok::and_) {
      next();
      auto rhs = parse_unary();
      if (!rhs.ok()) return rhs;
      node = make_node(Filter::Node::and_, node, *rhs);
    }
    return node;
  }

  Result<NodeP> parse_unary() {
    if (peek().kind == Tok::not_ || peek().kind == Tok::lparen) {
      if (depth_ >= kMaxFilterDepth)
        return error_at(peek().column, fmt::format("nesting deeper than {} levels of '(' and '!'", kMaxFilterDepth));
      ++depth_;
      auto inner = parse_nested();
      --depth_;
      return inner;
    }
    return parse_compare();
  }

  Result<NodeP> parse_nested() {
    if (next().kind == Tok::not_) {
      auto inner = parse_unary();
      if (!inner.ok()) return inner;
      return NodeP(make_node(Filter::Node::not_, *inner));
    }
    auto inner = parse_or();
    if (!inner.ok()) return inner;
    if (peek().kind != Tok::rparen) return error_at(peek().column, "expected ')'");
    next();
    return inner;
  }

  Result<Operand> parse_operand() {
    const Token& t = peek();
    if (t.kind == Tok::integer) {
      next();
      return Operand{Operand::integer, -1, t.value, t.text, t.column};
    }
    if (t.kind == Tok::ident) {
      next();
      int f = find_field(t.text);
      if (f >= 0) return Operand{Operand::field, f, 0, t.text, t.column};
      return Operand{Operand::name, -1, 0, t.text, t.column};
    }
    return error_at(t.column, "expected a value");
  }

  Result<NodeP> parse_compare() {
    auto lhs = parse_operand();
    if (!lhs.ok()) return lhs.status();
    if (peek().kind != Tok::cmp) {
      const auto is_bool_field = [&](std::string_view n) {
        return n == "deterministic" || n == "tma" || n == "packed" || n == "realign";
      };
      if (lhs->kind == Operand::field && is_bool_field(fields()[lhs->field_index].name)) {
        auto n = make_node(Filter::Node::bool_field);
        n->lhs_field = lhs->field_index;
        return NodeP(n);
      }
      if (lhs->kind == Operand::name) return error_at(lhs->column, fmt::format("unknown field '{}'", lhs->text));
      return error_at(peek().column, "expected a comparison operator (== != < <= > >=)");
    }
    const Token op = next();
    auto rhs = parse_operand();
    if (!rhs.ok()) return rhs.status();
    return resolve(*lhs, op, *rhs);
  }

  // Type-checks one comparison and turns names into enum values.
  Result<NodeP> resolve(Operand lhs, const Token& op, Operand rhs) {
    const auto& f = fields();
    auto is_enum = [&](const Operand& o) { return o.kind == Operand::field && !f[o.field_index].values.empty(); };
    const Operand* domain = is_enum(lhs) ? &lhs : is_enum(rhs) ? &rhs : nullptr;
    if (domain != nullptr) {
      const FieldDef& d = f[domain->field_index];
      const Operand& other = domain == &lhs ? rhs : lhs;
      if (op.cmp != Cmp::eq && op.cmp != Cmp::ne) {
        return error_at(op.column, fmt::format("operator '{}' does not apply to {} (use == or !=)", op.text, d.name));
      }
      if (other.kind == Operand::field && other.field_index != domain->field_index) {
        return error_at(other.column, fmt::format("cannot compare {} with {}", d.name, f[other.field_index].name));
      }
      if (other.kind == Operand::integer) {
        return error_at(other.column, fmt::format("{} takes a name ({}), not a number", d.name, fmt::join(d.values, "|")));
      }
    }
    for (Operand* o : {&lhs, &rhs}) {
      if (o->kind != Operand::name) continue;
      if (domain == nullptr) return error_at(o->column, fmt::format("unknown field '{}'", o->text));
      const FieldDef& d = f[domain->field_index];
      int v = -1;
      for (size_t i = 0; i < d.values.size(); ++i) {
        if (d.values[i] == o->text) v = static_cast<int>(i);
      }
      if (v < 0) {
        return error_at(o->column, fmt::format("unknown value '{}' for {} (expected {})", o->text, d.name,
                                               fmt::join(d.values, "|")));
      }
      o->kind = Operand::integer;
      o->value = v;
    }
    auto n = make_node(Filter::Node::compare);
    n->cmp = op.cmp;
    n->lhs_field = lhs.kind == Operand::field ? lhs.field_index : -1;
    n->rhs_field = rhs.kind == Operand::field ? rhs.field_index : -1;
    n->lhs_value = lhs.value;
    n->rhs_value = rhs.value;
    return NodeP(n);
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;  // open '(' and '!' around the current position
};

bool eval(const Filter::Node& n, const ArchRules& r, const KernelTraits& t) {
  switch (n.kind) {
    case Filter::Node::or_: return eval(*n.a, r, t) || eval(*n.b, r, t);
    case Filter::Node::and_: return eval(*n.a, r, t) && eval(*n.b, r, t);
    case Filter::Node::not_: return !eval(*n.a, r, t);
    case Filter::Node::bool_field: return fields()[n.lhs_field].get(r, t) != 0;
    case Filter::Node::compare: {
      int64_t a = n.lhs_field >= 0 ? fields()[n.lhs_field].get(r, t) : n.lhs_value;
      int64_t b = n.rhs_field >= 0 ? fields()[n.rhs_field].get(r, t) : n.rhs_value;
      switch (n.cmp) {
        case Cmp::eq: return a == b;
        case Cmp::ne: return a != b;
        case Cmp::lt: return a < b;
        case Cmp::le: return a <= b;
        case Cmp::gt: return a > b;
        case Cmp::ge: return a >= b;
      }
    }
  }
  return false;
}

}  // namespace

Result<Filter> Filter::parse(std::string_view expr) {
  auto toks = lex(expr);
  if (!toks.ok()) return toks.status();
  // Parsing, evaluating and freeing recurse over the expression tree, whose
  // size the input controls: bounded here (a real filter has a few dozen
  // tokens), so no input can exhaust the stack.
  if (toks->size() > kMaxFilterTokens)
    return parse_error(fmt::format("filter: more than {} tokens", kMaxFilterTokens));
  Parser p(std::move(*toks));
  auto root = p.parse();
  if (!root.ok()) return root.status();
  return Filter(*root, std::string(expr));
}

bool Filter::matches(const ArchRules& rules, const KernelTraits& t) const { return eval(*root_, rules, t); }

const std::vector<std::string>& Filter::field_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& f : fields()) v.push_back(f.name);
    return v;
  }();
  return names;
}

}  // namespace gconv
