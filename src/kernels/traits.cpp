// Kernel names: the one function that builds them and its inverse (grammar in
// traits.hpp). Names are keys in the registry, the JIT cache, sweep CSVs and
// the selector's training rows, so parse_kernel_name is strict: it accepts
// exactly what kernel_name writes (no leading zeros, no spare separators) and
// says where a malformed name goes wrong.
#include "kernels/traits.hpp"

#include <cctype>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace gconv {
namespace {

// Threads of the CUDA programming model's warp.
constexpr int kWarpSize = 32;
// Threads of a warpgroup: the four warps of one SM quadrant set that a
// Hopper wgmma instruction runs on.
constexpr int kWarpgroupSize = 4 * kWarpSize;

// A direct block spreads its channel slice over this many thread lanes, each
// lane holding `vec` consecutive channels: 8 lanes x 8 bf16 = 128 contiguous
// bytes per output pixel, one full cache line for the channels-last layout,
// while 8 x 1 still covers odd-channel problems without idling most lanes.
constexpr int kDirectChannelLanes = 8;

const char* split_suffix(SplitKMode m) {
  switch (m) {
    case SplitKMode::none: return "";
    case SplitKMode::parallel: return "p";
    case SplitKMode::serial: return "s";
    case SplitKMode::cluster: return "c";
  }
  return "?";
}

// A cursor over the name; every error reports a 1-based position.
class NameParser {
 public:
  explicit NameParser(std::string_view name) : name_(name) {}

  bool at_end() const { return pos_ == name_.size(); }

  Status error(const std::string& what) const {
    return parse_error(fmt::format("kernel name '{}': expected {} at position {}", name_, what, pos_ + 1));
  }

  // Consumes `lit` if the name continues with it.
  bool accept(std::string_view lit) {
    if (name_.substr(pos_, lit.size()) != lit) return false;
    pos_ += lit.size();
    return true;
  }
  Status expect(std::string_view lit) {
    if (!accept(lit)) return error(fmt::format("'{}'", lit));
    return Status::Ok();
  }

  // A positive decimal integer without sign or leading zero, at most 6 digits
  // (no trait comes near a million; this also rules out overflow).
  Status number(const char* what, int* out) {
    size_t start = pos_;
    while (pos_ < name_.size() && std::isdigit(static_cast<unsigned char>(name_[pos_]))) ++pos_;
    size_t len = pos_ - start;
    if (len == 0 || len > 6 || name_[start] == '0') {
      pos_ = start;
      return error(fmt::format("{} (a positive integer)", what));
    }
    *out = std::stoi(std::string(name_.substr(start, len)));
    return Status::Ok();
  }

  // One of the direction names followed by '_' (bwd_data itself holds a '_').
  Status direction(Direction* out) {
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
      if (accept(std::string(to_string(d)) + "_")) {
        *out = d;
        return Status::Ok();
      }
    }
    return error("a direction (fwd_, bwd_data_, bwd_weight_)");
  }
  Status dtype(DType* out) {
    for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
      if (accept(std::string(to_string(t)) + "_")) {
        *out = t;
        return Status::Ok();
      }
    }
    return error("a dtype (bf16_, fp16_, fp32_)");
  }
  Status ndim(int* out) {
    for (int nd = 1; nd <= 3; ++nd) {
      if (accept(fmt::format("{}d_", nd))) {
        *out = nd;
        return Status::Ok();
      }
    }
    return error("1d_, 2d_ or 3d_");
  }

 private:
  std::string_view name_;
  size_t pos_ = 0;
};

// "_sk<S>" with S = 1 alone, or S >= 2 followed by its mode ('p', 's' or 'c'),
// then the '_' before the vector width (shared by igemm and wgmma names).
Status parse_split(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(p.expect("_sk"));
  GCONV_RETURN_IF_ERROR(p.number("split_k", &t->split_k));
  // sk1 is the only spelling of "no split"; a real split names its mode.
  if (t->split_k == 1) {
    t->split_mode = SplitKMode::none;
    if (!p.accept("_")) return p.error("'_' (split-K 1 takes no p/s suffix)");
    return Status::Ok();
  }
  if (p.accept("p")) {
    t->split_mode = SplitKMode::parallel;
  } else if (p.accept("s")) {
    t->split_mode = SplitKMode::serial;
  } else if (p.accept("c")) {
    t->split_mode = SplitKMode::cluster;
  } else {
    return p.error("'p', 's' or 'c' (the split-K mode)");
  }
  return p.expect("_");
}

// "m<TM>n<TN>k<TK>": the CTA tile of both implicit-GEMM families.
Status parse_tile(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(p.expect("m"));
  GCONV_RETURN_IF_ERROR(p.number("tile_m", &t->tile_m));
  GCONV_RETURN_IF_ERROR(p.expect("n"));
  GCONV_RETURN_IF_ERROR(p.number("tile_n", &t->tile_n));
  GCONV_RETURN_IF_ERROR(p.expect("k"));
  return p.number("tile_k", &t->tile_k);
}

Status parse_igemm(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(parse_tile(p, t));
  GCONV_RETURN_IF_ERROR(p.expect("_w"));
  GCONV_RETURN_IF_ERROR(p.number("warps_m", &t->warps_m));
  GCONV_RETURN_IF_ERROR(p.expect("x"));
  GCONV_RETURN_IF_ERROR(p.number("warps_n", &t->warps_n));
  GCONV_RETURN_IF_ERROR(p.expect("_s"));
  GCONV_RETURN_IF_ERROR(p.number("stages", &t->stages));
  GCONV_RETURN_IF_ERROR(parse_split(p, t));
  GCONV_RETURN_IF_ERROR(p.expect("v"));
  GCONV_RETURN_IF_ERROR(p.number("vec", &t->vec));
  GCONV_RETURN_IF_ERROR(p.expect("_g"));
  GCONV_RETURN_IF_ERROR(p.number("groups_per_block", &t->groups_per_block));
  t->packed = p.accept("_pk");
  if (!t->packed) t->realign = p.accept("_ra");
  return Status::Ok();
}

// The name has no warps_n: a wgmma kernel has one column of consumer
// warpgroups, as expansion builds it; groups_per_block is 1 unless the name
// ends in _pk<groups_per_block> (packed).
Status parse_wgmma(NameParser& p, KernelTraits* t) {
  t->warps_n = 1;
  t->groups_per_block = 1;
  GCONV_RETURN_IF_ERROR(parse_tile(p, t));
  GCONV_RETURN_IF_ERROR(p.expect("_c"));
  GCONV_RETURN_IF_ERROR(p.number("consumer warpgroups", &t->warps_m));
  GCONV_RETURN_IF_ERROR(p.expect("_s"));
  GCONV_RETURN_IF_ERROR(p.number("stages", &t->stages));
  GCONV_RETURN_IF_ERROR(parse_split(p, t));
  GCONV_RETURN_IF_ERROR(p.expect("v"));
  GCONV_RETURN_IF_ERROR(p.number("vec", &t->vec));
  t->tma = p.accept("_tma");
  t->realign = p.accept("_ra");  // after _tma: staged operands (wgmma/staged.hpp)
  if (p.accept("_pk")) {  // packed bwd_weight (wgmma/packed.hpp): _pk<groups_per_block>
    t->packed = true;
    GCONV_RETURN_IF_ERROR(p.number("groups_per_block", &t->groups_per_block));
  }
  return Status::Ok();
}

Status parse_direct(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(p.expect("t"));
  GCONV_RETURN_IF_ERROR(p.number("block_h", &t->block_h));
  GCONV_RETURN_IF_ERROR(p.expect("x"));
  GCONV_RETURN_IF_ERROR(p.number("block_w", &t->block_w));
  GCONV_RETURN_IF_ERROR(p.expect("_r"));
  GCONV_RETURN_IF_ERROR(p.number("per_thread", &t->per_thread));
  GCONV_RETURN_IF_ERROR(p.expect("_v"));
  GCONV_RETURN_IF_ERROR(p.number("vec", &t->vec));
  if (p.accept("_w")) {  // a register-window kernel; never _det (its reduction is deterministic anyway)
    GCONV_RETURN_IF_ERROR(p.number("window filter width", &t->win_fx));
    GCONV_RETURN_IF_ERROR(p.expect("s"));
    GCONV_RETURN_IF_ERROR(p.number("window stride", &t->win_sx));
    t->tma = p.accept("_tma");  // fwd / bwd_data: the TMA row stream (window_stream.cuh)
    return Status::Ok();
  }
  t->deterministic = p.accept("_det");
  return Status::Ok();
}

// "t<TH>x<TW>_w<warps>": the dx tile and the warps of a tinyc block.
Status parse_tinyc(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(p.expect("t"));
  GCONV_RETURN_IF_ERROR(p.number("block_h", &t->block_h));
  GCONV_RETURN_IF_ERROR(p.expect("x"));
  GCONV_RETURN_IF_ERROR(p.number("block_w", &t->block_w));
  GCONV_RETURN_IF_ERROR(p.expect("_w"));
  return p.number("warps", &t->warps_m);
}

// pw: m<TM>n<TN>k<TK>_w<warps>_s<stages>; warps_n is 1 (one warp column).
Status parse_pw(NameParser& p, KernelTraits* t) {
  GCONV_RETURN_IF_ERROR(p.expect("m"));
  GCONV_RETURN_IF_ERROR(p.number("tile_m", &t->tile_m));
  GCONV_RETURN_IF_ERROR(p.expect("n"));
  GCONV_RETURN_IF_ERROR(p.number("tile_n", &t->tile_n));
  GCONV_RETURN_IF_ERROR(p.expect("k"));
  GCONV_RETURN_IF_ERROR(p.number("tile_k", &t->tile_k));
  GCONV_RETURN_IF_ERROR(p.expect("_w"));
  GCONV_RETURN_IF_ERROR(p.number("warps", &t->warps_m));
  t->warps_n = 1;
  GCONV_RETURN_IF_ERROR(p.expect("_s"));
  return p.number("stages", &t->stages);
}

}  // namespace

const char* to_string(SplitKMode m) {
  switch (m) {
    case SplitKMode::none: return "none";
    case SplitKMode::parallel: return "parallel";
    case SplitKMode::serial: return "serial";
    case SplitKMode::cluster: return "cluster";
  }
  return "unknown";
}

const char* to_string(Family f) {
  switch (f) {
    case Family::igemm: return "igemm";
    case Family::direct: return "direct";
    case Family::wgmma: return "wgmma";
    case Family::tinyc: return "tinyc";
    case Family::pw: return "pw";
  }
  return "unknown";
}

// igemm: one thread per lane of a warps_m x warps_n warp grid.
// wgmma: one producer warpgroup, then warps_m consumer warpgroups.
// direct: block_h rows x (block_w / per_thread) column threads per channel
// lane, times kDirectChannelLanes lanes (see above). A thread of a direct
// kernel is therefore identified by (row, column, lane) with lane fastest, so
// a warp's loads of one output pixel's channels are contiguous.
int KernelTraits::threads() const {
  if (family == Family::igemm) return warps_m * warps_n * kWarpSize;
  if (family == Family::wgmma) return kWarpgroupSize * (warps_m + 1);
  if (family == Family::tinyc || family == Family::pw) return warps_m * kWarpSize;
  if (per_thread <= 0) return 0;
  return block_h * (block_w / per_thread) * kDirectChannelLanes;
}

std::string kernel_name(const KernelTraits& t) {
  std::string head = fmt::format("{}_{}_{}_{}d_", to_string(t.family), to_string(t.direction),
                                 to_string(t.dtype), t.ndim);
  if (t.family == Family::igemm) {
    return head + fmt::format("m{}n{}k{}_w{}x{}_s{}_sk{}{}_v{}_g{}{}", t.tile_m, t.tile_n, t.tile_k,
                              t.warps_m, t.warps_n, t.stages, t.split_k, split_suffix(t.split_mode),
                              t.vec, t.groups_per_block, t.packed ? "_pk" : t.realign ? "_ra" : "");
  }
  if (t.family == Family::wgmma) {
    return head + fmt::format("m{}n{}k{}_c{}_s{}_sk{}{}_v{}{}{}", t.tile_m, t.tile_n, t.tile_k, t.warps_m, t.stages,
                              t.split_k, split_suffix(t.split_mode), t.vec,
                              t.tma ? (t.realign ? "_tma_ra" : "_tma") : t.realign ? "_ra" : "",
                              t.packed ? fmt::format("_pk{}", t.groups_per_block) : std::string());
  }
  if (t.family == Family::tinyc) return head + fmt::format("t{}x{}_w{}", t.block_h, t.block_w, t.warps_m);
  if (t.family == Family::pw)
    return head + fmt::format("m{}n{}k{}_w{}_s{}", t.tile_m, t.tile_n, t.tile_k, t.warps_m, t.stages);
  if (t.win_fx > 0) {
    return head + fmt::format("t{}x{}_r{}_v{}_w{}s{}{}", t.block_h, t.block_w, t.per_thread, t.vec, t.win_fx,
                              t.win_sx, t.tma ? "_tma" : "");
  }
  return head + fmt::format("t{}x{}_r{}_v{}{}", t.block_h, t.block_w, t.per_thread, t.vec,
                            t.deterministic ? "_det" : "");
}

// Fields that the name does not carry keep their KernelTraits defaults (a
// wgmma name's warps_n and groups_per_block are 1), which is also how
// expansion builds traits (src/pool), so that
// parse_kernel_name(kernel_name(t)) == t for every pool kernel.
Result<KernelTraits> parse_kernel_name(std::string_view name) {
  NameParser p(name);
  KernelTraits t;
  if (p.accept("igemm_")) {
    t.family = Family::igemm;
  } else if (p.accept("direct_")) {
    t.family = Family::direct;
  } else if (p.accept("wgmma_")) {
    t.family = Family::wgmma;
  } else if (p.accept("tinyc_")) {
    t.family = Family::tinyc;
  } else if (p.accept("pw_")) {
    t.family = Family::pw;
  } else {
    return p.error("a family (igemm_, direct_, wgmma_, tinyc_, pw_)");
  }
  GCONV_RETURN_IF_ERROR(p.direction(&t.direction));
  GCONV_RETURN_IF_ERROR(p.dtype(&t.dtype));
  GCONV_RETURN_IF_ERROR(p.ndim(&t.ndim));
  switch (t.family) {
    case Family::igemm: GCONV_RETURN_IF_ERROR(parse_igemm(p, &t)); break;
    case Family::wgmma: GCONV_RETURN_IF_ERROR(parse_wgmma(p, &t)); break;
    case Family::direct: GCONV_RETURN_IF_ERROR(parse_direct(p, &t)); break;
    case Family::tinyc: GCONV_RETURN_IF_ERROR(parse_tinyc(p, &t)); break;
    case Family::pw: GCONV_RETURN_IF_ERROR(parse_pw(p, &t)); break;
  }
  if (!p.at_end()) return p.error("the end of the name");
  return t;
}

}  // namespace gconv
