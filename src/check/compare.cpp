#include "check/compare.hpp"

#include <cmath>
#include <cstdio>

#include "gconv/numeric.hpp"

namespace gconv {

Tolerance tolerance_for(const Problem& p) {
  const GemmShape g = p.gemm();
  const double red = double(g.k);
  Tolerance t;
  switch (p.dtype) {
    case DType::bf16:
      t.rtol = std::ldexp(1.0, -7);
      t.atol = std::ldexp(1.0, -8);
      t.norm_tol = 1e-2;
      break;
    case DType::fp16:
      t.rtol = std::ldexp(1.0, -9);
      t.atol = std::ldexp(1.0, -10);
      t.norm_tol = 2e-3;
      break;
    case DType::fp32:
      // TF32 keeps 10 mantissa bits of each operand: errors ~2^-11 per
      // product, random in sign, so ~2^-11 * rms(result) overall.
      t.rtol = std::ldexp(1.0, -10);
      t.atol = 8 * std::ldexp(1.0, -11);
      t.norm_tol = 3e-3;
      break;
  }
  // fp32 accumulation order differs from the fp64 reference: ~sqrt(red) * 2^-24.
  t.atol += std::sqrt(red) * std::ldexp(1.0, -20);
  return t;
}

CompareResult compare_outputs(DType t, const void* out, const void* ref, int64_t n, const Tolerance& tol) {
  CompareResult r;
  double ref_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = load_element(t, ref, i);
    ref_sq += v * v;
  }
  const double rms = n ? std::sqrt(ref_sq / double(n)) : 0;
  double err_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double o = load_element(t, out, i), f = load_element(t, ref, i);
    const bool finite = std::isfinite(o);
    const double e = finite ? std::fabs(o - f) : INFINITY;
    if (!finite) ++r.nonfinite;
    if (!(e <= tol.rtol * std::fabs(f) + tol.atol * rms)) {
      if (r.bad == 0) {
        r.first_bad = i;
        r.first_out = o;
        r.first_ref = f;
      }
      ++r.bad;
    }
    if (finite) {
      err_sq += e * e;
      if (e > r.max_abs_err) r.max_abs_err = e;
    }
  }
  r.rel_norm_err = ref_sq > 0 ? std::sqrt(err_sq / ref_sq) : std::sqrt(err_sq);
  r.ok = r.bad == 0 && r.nonfinite == 0 && r.rel_norm_err <= tol.norm_tol;
  return r;
}

std::string CompareResult::summary() const {
  char buf[256];
  if (ok) {
    std::snprintf(buf, sizeof buf, "ok rel_err=%.2e max_abs=%.2e", rel_norm_err, max_abs_err);
  } else {
    std::snprintf(buf, sizeof buf, "wrong bad=%lld nonfinite=%lld first=%lld out=%g ref=%g rel_err=%.2e",
                  (long long)bad, (long long)nonfinite, (long long)first_bad, first_out, first_ref, rel_norm_err);
  }
  return buf;
}

}  // namespace gconv
