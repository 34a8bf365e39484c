#include "problem/fold.hpp"

namespace gconv {

bool foldable(const Problem& p) {
  constexpr int w = 2;  // W is the last (right-aligned) spatial slot in every ndim
  const int64_t sx = p.stride[w];
  if (p.g != 1 || sx <= 1 || p.filter[w] != sx) return false;
  if (p.pad_lo[w] != 0 || p.pad_hi[w] != 0 || p.dilation[w] != 1) return false;
  if (p.in[w] % sx != 0) return false;
  if (p.c > kMaxTensorElements / sx) return false;
  return p.validate().ok();
}

Problem fold_patches(const Problem& p) {
  if (!foldable(p)) return p;
  constexpr int w = 2;
  const int64_t sx = p.stride[w];
  Problem f = p;
  f.in[w] = p.in[w] / sx;
  f.c = p.c * sx;
  f.filter[w] = 1;
  f.stride[w] = 1;
  return f;
}

}  // namespace gconv
