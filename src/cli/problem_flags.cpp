// Problem options for subcommands (usage in problem_flags.hpp).
#include "cli/problem_flags.hpp"

#include <charconv>
#include <vector>

namespace gconv::cli {
namespace {

struct Entry { int64_t lo = 0, hi = 0; };

Result<int64_t> number(std::string_view s, const char* flag) {
  int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [end, ec] = std::from_chars(b, e, v);
  if (b == e || ec != std::errc() || end != e)
    return invalid_argument(std::string(flag) + ": '" + std::string(s) + "' is not an integer");
  return v;
}

// "2" | "2,1" | (pads) "0:1,1"; returns one entry per used dimension.
Result<std::vector<Entry>> parse_list(const std::string& text, const char* flag, bool allow_pair, int ndim) {
  std::vector<Entry> out;
  std::string_view rest = text;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    Entry e;
    size_t colon = item.find(':');
    if (colon != std::string_view::npos && !allow_pair)
      return invalid_argument(std::string(flag) + ": '" + text + "' has a lo:hi pair (only --pad takes them)");
    auto lo = number(item.substr(0, colon), flag);
    if (!lo.ok()) return lo.status();
    e.lo = e.hi = *lo;
    if (colon != std::string_view::npos) {
      auto hi = number(item.substr(colon + 1), flag);
      if (!hi.ok()) return hi.status();
      e.hi = *hi;
    }
    out.push_back(e);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (out.size() == 1) out.assign(size_t(ndim), out[0]);
  if (out.size() != size_t(ndim))
    return invalid_argument(std::string(flag) + ": list '" + text + "' has " + std::to_string(out.size()) +
                            " entries for a " + std::to_string(ndim) + "D problem");
  return out;
}

}  // namespace

bool ProblemFlags::any() const {
  return !spec.empty() || n || c || k || g || d || h || w || z || y || x || !stride.empty() || !pad.empty() ||
         !dilation.empty();
}

void add_problem_flags(CLI::App* cmd, ProblemFlags* f) {
  cmd->add_option("spec", f->spec, "Problem spec, e.g. fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1");
  const auto group = "Problem (instead of a spec)";
  cmd->add_option("--n", f->n, "Batch size (default 1)")->group(group);
  cmd->add_option("--c", f->c, "Input channels, total over all groups")->group(group);
  cmd->add_option("--k", f->k, "Output channels, total over all groups")->group(group);
  cmd->add_option("--g", f->g, "Groups (default 1)")->group(group);
  cmd->add_option("--d", f->d, "Input depth (makes the problem 3D)")->group(group);
  cmd->add_option("--h", f->h, "Input height (2D and 3D)")->group(group);
  cmd->add_option("--w", f->w, "Input width")->group(group);
  cmd->add_option("--z", f->z, "Filter depth (default 1)")->group(group);
  cmd->add_option("--y", f->y, "Filter height (default 1)")->group(group);
  cmd->add_option("--x", f->x, "Filter width (default 1)")->group(group);
  cmd->add_option("--stride", f->stride, "Stride: one value or a list per dim, e.g. 2 or 1,2,2")->group(group);
  cmd->add_option("--pad", f->pad, "Padding: one value or a list per dim; an entry may be lo:hi")->group(group);
  cmd->add_option("--dilation", f->dilation, "Dilation: one value or a list per dim")->group(group);
  cmd->add_option("--direction", f->direction, "fwd | bwd_data | bwd_weight (default fwd)");
  cmd->add_option("--dtype", f->dtype, "bf16 | fp16 | fp32 (default bf16)");
}

Result<Problem> problem_from_flags(const ProblemFlags& f) {
  const bool size_flags = f.n || f.c || f.k || f.g || f.d || f.h || f.w || f.z || f.y || f.x || !f.stride.empty() ||
                          !f.pad.empty() || !f.dilation.empty();
  Problem p;
  if (!f.spec.empty()) {
    if (size_flags) return invalid_argument("give either a spec or the size flags (--n, --c, ...), not both");
    auto parsed = Problem::parse_spec(f.spec);
    if (!parsed.ok()) return Status(parsed.status().code(), "spec '" + f.spec + "': " + parsed.status().message());
    p = *parsed;
  } else {
    if (!size_flags) return invalid_argument("no problem given: pass a spec or --c, --k, --w, ...");
    for (auto [opt, name] : {std::pair{&f.c, "--c"}, {&f.k, "--k"}, {&f.w, "--w"}})
      if (!*opt) return invalid_argument(std::string(name) + " is required");
    p.ndim = (f.d || f.z) ? 3 : (f.h || f.y) ? 2 : 1;
    if (p.ndim >= 2 && !f.h) return invalid_argument("--h is required for a " + std::to_string(p.ndim) + "D problem");
    if (p.ndim == 3 && !f.d) return invalid_argument("--d is required for a 3D problem");
    p.n = f.n.value_or(1);
    p.c = *f.c;
    p.k = *f.k;
    p.g = f.g.value_or(1);
    const std::optional<int64_t>* in[3] = {&f.d, &f.h, &f.w};
    const std::optional<int64_t>* filt[3] = {&f.z, &f.y, &f.x};
    const int first = p.first_slot();
    for (int i = first; i < 3; ++i) {
      p.in[i] = in[i]->value_or(1);
      p.filter[i] = filt[i]->value_or(1);
    }
    if (!f.stride.empty()) {
      auto v = parse_list(f.stride, "--stride", false, p.ndim);
      if (!v.ok()) return v.status();
      for (int i = first; i < 3; ++i) p.stride[i] = (*v)[size_t(i - first)].lo;
    }
    if (!f.dilation.empty()) {
      auto v = parse_list(f.dilation, "--dilation", false, p.ndim);
      if (!v.ok()) return v.status();
      for (int i = first; i < 3; ++i) p.dilation[i] = (*v)[size_t(i - first)].lo;
    }
    if (!f.pad.empty()) {
      auto v = parse_list(f.pad, "--pad", true, p.ndim);
      if (!v.ok()) return v.status();
      for (int i = first; i < 3; ++i) {
        p.pad_lo[i] = (*v)[size_t(i - first)].lo;
        p.pad_hi[i] = (*v)[size_t(i - first)].hi;
      }
    }
  }
  if (!f.direction.empty()) {
    auto d = parse_direction(f.direction);
    if (!d.ok()) return d.status();
    p.direction = *d;
  }
  if (!f.dtype.empty()) {
    auto t = parse_dtype(f.dtype);
    if (!t.ok()) return t.status();
    p.dtype = *t;
  }
  GCONV_RETURN_IF_ERROR(p.validate());
  return p;
}

}  // namespace gconv::cli
