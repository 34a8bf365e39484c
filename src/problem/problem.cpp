// Problem math and validation. The rules live in validate(); everything else
// assumes a valid problem (callers validate first).
#include <limits>
#include <string>

#include "gconv/problem.hpp"

namespace gconv {
namespace {

const char* kSlotName[3] = {"d", "h", "w"};
const char* kFilterName[3] = {"z", "y", "x"};
const char* kSlotUpper[3] = {"D", "H", "W"};

// a * b with overflow detection for non-negative operands.
bool mul_overflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

std::string field(const char* what, int slot) { return std::string(what) + "_" + kSlotName[slot]; }

}  // namespace

const char* to_string(Direction d) {
  switch (d) {
    case Direction::fwd: return "fwd";
    case Direction::bwd_data: return "bwd_data";
    case Direction::bwd_weight: return "bwd_weight";
  }
  return "?";
}

const char* to_string(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
  }
  return "?";
}

Result<Direction> parse_direction(std::string_view s) {
  if (s == "fwd") return Direction::fwd;
  if (s == "bwd_data") return Direction::bwd_data;
  if (s == "bwd_weight") return Direction::bwd_weight;
  return invalid_argument("direction: unknown name '" + std::string(s) +
                          "' (expected fwd, bwd_data or bwd_weight)");
}

Result<DType> parse_dtype(std::string_view s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp16") return DType::fp16;
  if (s == "fp32") return DType::fp32;
  return invalid_argument("dtype: unknown name '" + std::string(s) + "' (expected bf16, fp16 or fp32)");
}

int dtype_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }

int64_t TensorDesc::elements() const {
  uint64_t e = 1;
  for (int64_t s : shape) e *= uint64_t(s);
  return int64_t(e);
}

int64_t Problem::out(int i) const {
  const int64_t eff = dilation[i] * (filter[i] - 1) + 1;
  const int64_t span = in[i] + pad_lo[i] + pad_hi[i] - eff;
  if (span < 0 || stride[i] < 1) return 0;  // stride < 1: invalid, and no division by zero
  return span / stride[i] + 1;
}

Status Problem::validate() const {
  auto bad = [](std::string m) { return invalid_problem(std::move(m)); };
  if (ndim < 1 || ndim > 3) return bad("ndim (" + std::to_string(ndim) + ") must be 1, 2 or 3");
  if (n < 1) return bad("N (" + std::to_string(n) + ") must be positive");
  if (c < 1) return bad("C (" + std::to_string(c) + ") must be positive");
  if (k < 1) return bad("K (" + std::to_string(k) + ") must be positive");
  if (g < 1) return bad("G (" + std::to_string(g) + ") must be positive");
  if (c % g != 0) return bad("C (" + std::to_string(c) + ") is not divisible by G (" + std::to_string(g) + ")");
  if (k % g != 0) return bad("K (" + std::to_string(k) + ") is not divisible by G (" + std::to_string(g) + ")");
  if (direction != Direction::fwd && direction != Direction::bwd_data && direction != Direction::bwd_weight)
    return bad("direction: unknown value");
  if (dtype != DType::bf16 && dtype != DType::fp16 && dtype != DType::fp32) return bad("dtype: unknown value");
  for (int i = 0; i < 3; ++i) {
    const bool used = i >= first_slot();
    auto name = [&](const char* base) { return field(base, i); };
    if (!used) {
      // Unused slots must be neutral so that 3D arithmetic stays exact.
      if (in[i] != 1 || filter[i] != 1 || stride[i] != 1 || dilation[i] != 1 || pad_lo[i] != 0 || pad_hi[i] != 0)
        return bad(std::string("spatial slot ") + kSlotName[i] + " is unused in a " + std::to_string(ndim) +
                   "D problem and must have size 1, stride 1, dilation 1, pad 0");
      continue;
    }
    if (in[i] < 1) return bad(std::string("input size ") + kSlotName[i] + " (" + std::to_string(in[i]) + ") must be positive");
    if (filter[i] < 1)
      return bad(std::string("filter size ") + kFilterName[i] + " (" + std::to_string(filter[i]) + ") must be positive");
    if (stride[i] < 1) return bad(name("stride") + " (" + std::to_string(stride[i]) + ") must be at least 1");
    if (dilation[i] < 1) return bad(name("dilation") + " (" + std::to_string(dilation[i]) + ") must be at least 1");
    if (pad_lo[i] < 0) return bad(name("pad_lo") + " (" + std::to_string(pad_lo[i]) + ") must not be negative");
    if (pad_hi[i] < 0) return bad(name("pad_hi") + " (" + std::to_string(pad_hi[i]) + ") must not be negative");
    // Sizes up to 2^31 each keep the arithmetic below free of overflow.
    constexpr int64_t kDimMax = int64_t{1} << 31;
    if (in[i] > kDimMax || filter[i] > kDimMax || stride[i] > kDimMax || dilation[i] > kDimMax ||
        pad_lo[i] > kDimMax || pad_hi[i] > kDimMax)
      return bad(std::string("spatial slot ") + kSlotName[i] + ": a size, stride, dilation or pad exceeds 2^31");
    const int64_t eff = dilation[i] * (filter[i] - 1) + 1;
    const int64_t padded = in[i] + pad_lo[i] + pad_hi[i];
    if (eff > padded)
      return bad(std::string("dilated filter ") + kFilterName[i] + " (" + std::to_string(eff) +
                 ") is larger than the padded input " + kSlotName[i] + " (" + std::to_string(padded) + ")");
    if (out(i) < 1) return bad(std::string("output size ") + kSlotName[i] + " is below 1");
  }
  // Element counts: each tensor must fit 64 bits, and kernels index with 32 bits.
  // Computed from the fields (not through x_desc()/w_desc()/y_desc(), which
  // build string vectors): validate() runs per candidate kernel in selection.
  const int64_t x_dims[5] = {n, in[0], in[1], in[2], c};
  const int64_t w_dims[5] = {k, filter[0], filter[1], filter[2], c_per_group()};
  const int64_t y_dims[5] = {n, out(0), out(1), out(2), k};
  struct Named { const char* what; const int64_t* dims; };
  const Named tensors[] = {{"input x", x_dims}, {"weight w", w_dims}, {"output y", y_dims}};
  for (const auto& t : tensors) {
    int64_t e = 1;
    for (int j = 0; j < 5; ++j) {
      if (mul_overflows(e, t.dims[j], &e))
        return bad(std::string(t.what) + ": element count overflows 64 bits");
    }
    if (e > kMaxTensorElements)
      return bad(std::string(t.what) + " has " + std::to_string(e) + " elements, over the kernels' index limit of " +
                 std::to_string(kMaxTensorElements) + " (2^31 - 1)");
  }
  // FLOPs in double are fine, but the GEMM products must fit int64.
  int64_t tmp = 0;
  if (mul_overflows(n, out_volume(), &tmp) || mul_overflows(tmp, k, &tmp) || mul_overflows(tmp, c_per_group(), &tmp) ||
      mul_overflows(tmp, filter_volume(), &tmp))
    return bad("N*K*out_volume*(C/G)*filter_volume overflows 64 bits");
  return Status::Ok();
}

GemmShape Problem::gemm() const {
  const int64_t cg = c_per_group(), kg = k_per_group();
  switch (direction) {
    case Direction::fwd: return {n * out_volume(), kg, cg * filter_volume(), g};
    case Direction::bwd_data: return {n * in_volume(), cg, kg * filter_volume(), g};
    case Direction::bwd_weight: return {kg, cg * filter_volume(), n * out_volume(), g};
  }
  return {};
}

double Problem::flops() const {
  return 2.0 * double(n) * double(k) * double(out_volume()) * double(c_per_group()) * double(filter_volume());
}

int64_t Problem::min_bytes() const {
  // The element counts of x_desc(), w_desc() and y_desc(), without building them.
  return (n * in_volume() * c + k * filter_volume() * c_per_group() + n * out_volume() * k) * dtype_bytes(dtype);
}

bool Problem::is_pointwise() const {
  for (int i = 0; i < 3; ++i)
    if (filter[i] != 1 || stride[i] != 1 || pad_lo[i] != 0 || pad_hi[i] != 0) return false;
  return true;
}

namespace {

TensorDesc make_desc(std::vector<std::string> dims, std::vector<int64_t> shape) {
  TensorDesc d{std::move(dims), std::move(shape), {}};
  d.strides.assign(d.shape.size(), 1);
  // Unsigned arithmetic: an overflowing (invalid) problem wraps instead of
  // being undefined; validate() reports the overflow separately.
  for (int i = int(d.shape.size()) - 2; i >= 0; --i)
    d.strides[i] = int64_t(uint64_t(d.strides[i + 1]) * uint64_t(d.shape[i + 1]));
  return d;
}

}  // namespace

TensorDesc Problem::x_desc() const {
  std::vector<std::string> dims{"N"};
  std::vector<int64_t> shape{n};
  for (int i = first_slot(); i < 3; ++i) {
    dims.push_back(kSlotUpper[i]);
    shape.push_back(in[i]);
  }
  dims.push_back("C");
  shape.push_back(c);
  return make_desc(std::move(dims), std::move(shape));
}

TensorDesc Problem::w_desc() const {
  static const char* names[3] = {"Z", "Y", "X"};
  std::vector<std::string> dims{"K"};
  std::vector<int64_t> shape{k};
  for (int i = first_slot(); i < 3; ++i) {
    dims.push_back(names[i]);
    shape.push_back(filter[i]);
  }
  dims.push_back("C/G");
  shape.push_back(c_per_group());
  return make_desc(std::move(dims), std::move(shape));
}

TensorDesc Problem::y_desc() const {
  static const char* names[3] = {"Do", "Ho", "Wo"};
  std::vector<std::string> dims{"N"};
  std::vector<int64_t> shape{n};
  for (int i = first_slot(); i < 3; ++i) {
    dims.push_back(names[i]);
    shape.push_back(out(i));
  }
  dims.push_back("K");
  shape.push_back(k);
  return make_desc(std::move(dims), std::move(shape));
}

}  // namespace gconv
