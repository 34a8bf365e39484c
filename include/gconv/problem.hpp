// gconv::Problem: one grouped convolution, in any direction, 1D/2D/3D.
//
// Layouts are channels-last (PyTorch channels_last / channels_last_3d):
//   x  (input)  N, [D,] [H,] W, C          C = G * Cg   (Cg = C/G)
//   w  (weight) K, [Z,] [Y,] X, Cg         K = G * Kg   (Kg = K/G)
//   y  (output) N, [Do,] [Ho,] Wo, K
// C and K are totals over all groups (PyTorch in_channels / out_channels).
// Spatial arrays are stored right-aligned in 3 slots (index 2 is W/X): a 2D
// problem has in[0] == 1, a 1D problem in[0] == in[1] == 1, so every consumer
// can compute as 3D. Unused slots hold size 1, stride 1, dilation 1, pad 0.
//
// Implicit-GEMM view, per group (the G groups are independent GEMMs):
//   direction   | GEMM M          | GEMM N        | GEMM K            | A       | B      | C
//   ------------+-----------------+---------------+-------------------+---------+--------+----
//   fwd         | N * out_volume  | K/G           | C/G * filt_volume | im2col x| w      | y
//   bwd_data    | N * in_volume   | C/G           | K/G * filt_volume | dy taps | w      | dx
//   bwd_weight  | K/G             | C/G*filt_vol  | N * out_volume    | dy^T    |im2col x| dw
// bwd_data with stride s > 1 is computed per stride phase: a phase holds the
// input positions with the same (position mod s) and only the filter taps that
// reach them, so per phase M ~ N*in_volume/prod(s), K ~ K/G*filt_volume/prod(s)
// (gemm() reports the unphased totals, which have the same FLOPs).
//
// Sizes are 64-bit. Kernels index every tensor with 32-bit element offsets, so
// validate() rejects a tensor of more than kMaxTensorElements elements.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gconv/status.hpp"

namespace gconv {

enum class Direction { fwd, bwd_data, bwd_weight };
enum class DType { bf16, fp16, fp32 };

const char* to_string(Direction d);
const char* to_string(DType t);
Result<Direction> parse_direction(std::string_view s);  // "fwd", "bwd_data", "bwd_weight"
Result<DType> parse_dtype(std::string_view s);          // "bf16", "fp16", "fp32"
int dtype_bytes(DType t);

// Largest element count of one tensor that kernels can index (2^31 - 1).
inline constexpr int64_t kMaxTensorElements = (int64_t{1} << 31) - 1;

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 0;  // = G: one GEMM per group
};

// Shape and element strides of one channels-last tensor, outermost first.
struct TensorDesc {
  std::vector<std::string> dims;  // e.g. {"N","H","W","C"}
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  int64_t elements() const;
};

struct Problem {
  int ndim = 2;  // 1, 2 or 3 spatial dimensions
  int64_t n = 1, c = 1, k = 1, g = 1;
  std::array<int64_t, 3> in{1, 1, 1};      // D, H, W (right-aligned)
  std::array<int64_t, 3> filter{1, 1, 1};  // Z, Y, X
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> pad_lo{0, 0, 0};
  std::array<int64_t, 3> pad_hi{0, 0, 0};
  std::array<int64_t, 3> dilation{1, 1, 1};
  Direction direction = Direction::fwd;
  DType dtype = DType::bf16;

  // Checks every rule (sizes, divisibility, padding, output size, overflow,
  // index limits). The message names the field: "C (7) is not divisible by G (2)".
  Status validate() const;

  // 0 when g < 1 (an invalid problem): sizes derived from an unvalidated
  // problem never divide by zero.
  int64_t c_per_group() const { return g > 0 ? c / g : 0; }
  int64_t k_per_group() const { return g > 0 ? k / g : 0; }
  // Output size of spatial slot i (0..2); may be < 1 for an invalid problem.
  int64_t out(int i) const;
  int64_t in_volume() const { return in[0] * in[1] * in[2]; }
  int64_t out_volume() const { return out(0) * out(1) * out(2); }
  int64_t filter_volume() const { return filter[0] * filter[1] * filter[2]; }
  int first_slot() const { return 3 - ndim; }  // first used spatial slot

  GemmShape gemm() const;  // per the table above, for this->direction
  double flops() const;    // 2 * N * K * out_volume * (C/G) * filter_volume
  // Each tensor read or written once: x, w, y in the dtype's size.
  int64_t min_bytes() const;
  double arithmetic_intensity() const { return flops() / double(min_bytes()); }
  bool is_depthwise() const { return g == c && g > 1 && c_per_group() == 1; }
  bool is_pointwise() const;  // 1x1 filter, stride 1, no padding
  bool is_grouped() const { return g > 1 && !is_depthwise(); }

  TensorDesc x_desc() const;
  TensorDesc w_desc() const;
  TensorDesc y_desc() const;

  // Compact one-line spec, e.g. "fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1"
  // (grammar in src/problem/spec.cpp and README). parse_spec(to_spec(p)) == p.
  std::string to_spec() const;
  static Result<Problem> parse_spec(std::string_view spec);

  bool operator==(const Problem&) const = default;
};

}  // namespace gconv
