// gconv problem: the derived quantities of one problem, as a table or JSON.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_flags.hpp"
#include "gconv/problem.hpp"

namespace gconv::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr Direction kDirections[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_weight};

// Values of the used spatial slots, outermost first.
template <class F>
std::vector<int64_t> used(const Problem& p, F get) {
  std::vector<int64_t> v;
  for (int i = p.first_slot(); i < 3; ++i) v.push_back(get(i));
  return v;
}

std::string join(const std::vector<int64_t>& v, const char* sep = "x") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

GemmShape gemm_for(Problem p, Direction d) {
  p.direction = d;
  return p.gemm();
}

json gemm_json(const GemmShape& g) { return {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch}}; }

json tensor_json(const TensorDesc& t) {
  return {{"dims", t.dims}, {"shape", t.shape}, {"strides", t.strides}, {"elements", t.elements()}};
}

json to_json(const Problem& p) {
  json j;
  j["spec"] = p.to_spec();
  j["direction"] = to_string(p.direction);
  j["dtype"] = to_string(p.dtype);
  j["ndim"] = p.ndim;
  j["n"] = p.n;
  j["c"] = p.c;
  j["k"] = p.k;
  j["g"] = p.g;
  j["c_per_group"] = p.c_per_group();
  j["k_per_group"] = p.k_per_group();
  j["input"] = used(p, [&](int i) { return p.in[i]; });
  j["filter"] = used(p, [&](int i) { return p.filter[i]; });
  j["stride"] = used(p, [&](int i) { return p.stride[i]; });
  j["pad_lo"] = used(p, [&](int i) { return p.pad_lo[i]; });
  j["pad_hi"] = used(p, [&](int i) { return p.pad_hi[i]; });
  j["dilation"] = used(p, [&](int i) { return p.dilation[i]; });
  j["output"] = used(p, [&](int i) { return p.out(i); });
  j["gemm"] = gemm_json(p.gemm());
  json all;
  for (Direction d : kDirections) all[to_string(d)] = gemm_json(gemm_for(p, d));
  j["gemm_by_direction"] = all;
  j["flops"] = p.flops();
  j["min_bytes"] = p.min_bytes();
  j["arithmetic_intensity"] = p.arithmetic_intensity();
  j["is_depthwise"] = p.is_depthwise();
  j["is_pointwise"] = p.is_pointwise();
  j["is_grouped"] = p.is_grouped();
  j["tensors"] = {{"x", tensor_json(p.x_desc())}, {"w", tensor_json(p.w_desc())}, {"y", tensor_json(p.y_desc())}};
  return j;
}

std::string gemm_text(const GemmShape& g) {
  return fmt::format("M={} N={} K={} batch={}", g.m, g.n, g.k, g.batch);
}

void print_table(const Problem& p) {
  std::vector<std::pair<std::string, std::string>> rows;
  auto row = [&](std::string k, std::string v) { rows.emplace_back(std::move(k), std::move(v)); };
  static const char* kDims[3] = {"D", "H", "W"};
  std::string dim_names;
  for (int i = p.first_slot(); i < 3; ++i) dim_names += std::string(dim_names.empty() ? "" : ",") + kDims[i];
  row("spec", p.to_spec());
  row("direction", to_string(p.direction));
  row("dtype", fmt::format("{} ({} bytes)", to_string(p.dtype), dtype_bytes(p.dtype)));
  row("ndim", std::to_string(p.ndim));
  row("N C K G", fmt::format("{} {} {} {}", p.n, p.c, p.k, p.g));
  row("C/G K/G", fmt::format("{} {}", p.c_per_group(), p.k_per_group()));
  row("input (" + dim_names + ")", join(used(p, [&](int i) { return p.in[i]; })));
  row("filter", join(used(p, [&](int i) { return p.filter[i]; })));
  row("stride", join(used(p, [&](int i) { return p.stride[i]; })));
  row("pad lo / hi", join(used(p, [&](int i) { return p.pad_lo[i]; })) + " / " +
                         join(used(p, [&](int i) { return p.pad_hi[i]; })));
  row("dilation", join(used(p, [&](int i) { return p.dilation[i]; })));
  row("output (" + dim_names + ")", join(used(p, [&](int i) { return p.out(i); })));
  row(fmt::format("GEMM ({})", to_string(p.direction)), gemm_text(p.gemm()));
  for (Direction d : kDirections) row(fmt::format("  GEMM {}", to_string(d)), gemm_text(gemm_for(p, d)));
  row("FLOPs", fmt::format("{:.0f} ({:.3f} GFLOP)", p.flops(), p.flops() / 1e9));
  row("min bytes", fmt::format("{} ({:.3f} MB)", p.min_bytes(), double(p.min_bytes()) / 1e6));
  row("arithmetic intensity", fmt::format("{:.2f} FLOP/byte", p.arithmetic_intensity()));
  row("depthwise pointwise grouped",
      fmt::format("{} {} {}", p.is_depthwise() ? "yes" : "no", p.is_pointwise() ? "yes" : "no",
                  p.is_grouped() ? "yes" : "no"));
  struct Named { const char* name; TensorDesc d; };
  for (const Named& t : {Named{"x (input)", p.x_desc()}, Named{"w (weight)", p.w_desc()},
                         Named{"y (output)", p.y_desc()}}) {
    std::string dims;
    for (size_t i = 0; i < t.d.dims.size(); ++i) dims += (i ? "," : "") + t.d.dims[i];
    row(t.name, fmt::format("[{}] shape {} strides {}", dims, join(t.d.shape), join(t.d.strides, ",")));
  }
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  for (const auto& r : rows) fmt::print("{:<{}}  {}\n", r.first, width, r.second);
}

}  // namespace

void register_problem_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("problem", "Show a problem's sizes, GEMM shapes, FLOPs and tensor layouts");
  auto flags = std::make_shared<ProblemFlags>();
  auto as_json = std::make_shared<bool>(false);
  add_problem_flags(cmd, flags.get());
  cmd->add_flag("--json", *as_json, "Print one JSON object instead of a table");
  cmd->callback([flags, as_json] {
    auto p = problem_from_flags(*flags);
    if (!p.ok()) {
      std::fprintf(stderr, "gconv problem: %s\n", p.status().to_string().c_str());
      throw CLI::RuntimeError(1);
    }
    if (*as_json) {
      std::printf("%s\n", to_json(*p).dump(2).c_str());
    } else {
      print_table(*p);
    }
  });
}

}  // namespace gconv::cli
