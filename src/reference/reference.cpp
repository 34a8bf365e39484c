// CPU reference convolution (contract in include/gconv/reference.hpp).
//
// Each direction is a direct loop over its own definition (bwd_data and
// bwd_weight do not go through fwd), so the adjoint identities between them
// are a real check. Everything is computed as 3D: unused spatial slots hold
// size 1, stride 1, dilation 1, pad 0.
#include "gconv/reference.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "gconv/numeric.hpp"

namespace gconv {
namespace {

// Sizes of one problem as plain numbers, and the offsets of the three
// channels-last tensors.
struct Geometry {
  int64_t n, c, k, g, cg, kg;
  int64_t in[3], out[3], f[3], s[3], plo[3], dil[3];

  explicit Geometry(const Problem& p)
      : n(p.n), c(p.c), k(p.k), g(p.g), cg(p.c_per_group()), kg(p.k_per_group()) {
    for (int i = 0; i < 3; ++i) {
      in[i] = p.in[i];
      out[i] = p.out(i);
      f[i] = p.filter[i];
      s[i] = p.stride[i];
      plo[i] = p.pad_lo[i];
      dil[i] = p.dilation[i];
    }
  }
  int64_t filter_volume() const { return f[0] * f[1] * f[2]; }
  int64_t x_elements() const { return n * in[0] * in[1] * in[2] * c; }
  int64_t y_elements() const { return n * out[0] * out[1] * out[2] * k; }
  int64_t w_elements() const { return k * filter_volume() * cg; }
  // First element of pixel (n, d, h, w) of x (C channels) / y (K channels).
  int64_t x_at(int64_t b, int64_t d, int64_t h, int64_t w) const {
    return (((b * in[0] + d) * in[1] + h) * in[2] + w) * c;
  }
  int64_t y_at(int64_t b, int64_t d, int64_t h, int64_t w) const {
    return (((b * out[0] + d) * out[1] + h) * out[2] + w) * k;
  }
  // First element of tap (z, y, x) of output channel kk in w (Cg channels).
  int64_t w_at(int64_t kk, int64_t z, int64_t y, int64_t x) const {
    return (((kk * f[0] + z) * f[1] + y) * f[2] + x) * cg;
  }
  // Input position that output position o reads through tap t in slot i.
  int64_t in_pos(int i, int64_t o, int64_t t) const { return o * s[i] - plo[i] + t * dil[i]; }
  // The output position that reads input position pos through tap t in slot
  // i, or -1 if none (pos + pad_lo - t*dil must be a non-negative multiple of
  // the stride, and the quotient a valid output position).
  int64_t out_pos(int i, int64_t pos, int64_t t) const {
    const int64_t num = pos + plo[i] - t * dil[i];
    if (num < 0 || num % s[i] != 0) return -1;
    const int64_t o = num / s[i];
    return o < out[i] ? o : -1;
  }
};

// Dot product with four partial sums: the summation order depends only on
// n, so results do not depend on threading, and it runs ~4x faster than one
// serial chain of dependent adds.
double dot(const double* __restrict a, const double* __restrict b, int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// Operands never overlap (x is an input tensor, y the output); saying so
// lets the compiler vectorize without a runtime alias check.
// The 4-wide body is there only so the compiler vectorizes it at -O2.
void axpy(double alpha, const double* __restrict x, double* __restrict y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    y[i] += alpha * x[i];
    y[i + 1] += alpha * x[i + 1];
    y[i + 2] += alpha * x[i + 2];
    y[i + 3] += alpha * x[i + 3];
  }
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// 0 = one per hardware thread; more than 4 per hardware thread (and more than
// 256 in all) only costs thread creation, and tens of thousands exhaust the
// process: a request is clamped, never refused.
int resolve_threads(int threads) {
  const unsigned hw = std::thread::hardware_concurrency();
  const int cores = hw > 0 ? static_cast<int>(hw) : 1;
  if (threads <= 0) return cores;
  return std::min({threads, 4 * cores, 256});
}

// Runs body(worker, begin, end) over [0, count) split into `parts` contiguous
// ranges, one thread each (the calling thread takes the first).
template <class Body>
void parallel_ranges(int64_t count, int parts, const Body& body) {
  parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(parts, count)));
  auto range = [&](int i) {
    body(count * i / parts, count * (i + 1) / parts);
  };
  std::vector<std::thread> pool;
  pool.reserve(parts - 1);
  int started = 1;
  // A thread the system refuses (resource limits, or no memory for its
  // state) runs its range here instead: the result is the same, and no
  // exception leaves the library while started threads still run (that
  // would destroy joinable threads: std::terminate).
  try {
    for (; started < parts; ++started) pool.emplace_back(range, started);
  } catch (...) {
  }
  range(0);
  for (int i = started; i < parts; ++i) range(i);
  for (auto& t : pool) t.join();
}

// Runs body(i) for every i in [0, count), handing out chunks dynamically so
// cheap border pixels and expensive interior ones balance out.
template <class Body>
void parallel_items(int64_t count, int threads, const Body& body) {
  const int64_t chunk = std::max<int64_t>(1, count / (int64_t{threads} * 32));
  std::atomic<int64_t> next{0};
  parallel_ranges(threads, threads, [&](int64_t, int64_t) {
    for (;;) {
      const int64_t begin = next.fetch_add(chunk);
      if (begin >= count) return;
      const int64_t end = std::min(count, begin + chunk);
      for (int64_t i = begin; i < end; ++i) body(i);
    }
  });
}

// y[n,o,k] = sum over taps t and cg of x[n, in_pos(o,t), g*Cg + cg] * w[k,t,cg].
void fwd(const Geometry& q, const double* x, const double* w, double* y, int threads) {
  const int64_t pixels = q.n * q.out[0] * q.out[1] * q.out[2];
  parallel_items(pixels, threads, [&](int64_t pix) {
    const int64_t ow = pix % q.out[2];
    const int64_t oh = pix / q.out[2] % q.out[1];
    const int64_t od = pix / (q.out[2] * q.out[1]) % q.out[0];
    const int64_t b = pix / (q.out[2] * q.out[1] * q.out[0]);
    double* yp = y + q.y_at(b, od, oh, ow);
    for (int64_t kk = 0; kk < q.k; ++kk) {
      const int64_t grp = kk / q.kg;
      double acc = 0;
      for (int64_t tz = 0; tz < q.f[0]; ++tz) {
        const int64_t id = q.in_pos(0, od, tz);
        if (id < 0 || id >= q.in[0]) continue;
        for (int64_t ty = 0; ty < q.f[1]; ++ty) {
          const int64_t ih = q.in_pos(1, oh, ty);
          if (ih < 0 || ih >= q.in[1]) continue;
          for (int64_t tx = 0; tx < q.f[2]; ++tx) {
            const int64_t iw = q.in_pos(2, ow, tx);
            if (iw < 0 || iw >= q.in[2]) continue;
            acc += dot(x + q.x_at(b, id, ih, iw) + grp * q.cg, w + q.w_at(kk, tz, ty, tx), q.cg);
          }
        }
      }
      yp[kk] = acc;
    }
  });
}

// dx[n,i,c] = sum over taps t whose output position o = out_pos(i,t) exists,
// and over kg, of dy[n, o, g*Kg + kg] * w[g*Kg + kg, t, c - g*Cg].
void bwd_data(const Geometry& q, const double* dy, const double* w, double* dx, int threads) {
  const int64_t pixels = q.n * q.in[0] * q.in[1] * q.in[2];
  parallel_items(pixels, threads, [&](int64_t pix) {
    const int64_t iw = pix % q.in[2];
    const int64_t ih = pix / q.in[2] % q.in[1];
    const int64_t id = pix / (q.in[2] * q.in[1]) % q.in[0];
    const int64_t b = pix / (q.in[2] * q.in[1] * q.in[0]);
    double* dxp = dx + q.x_at(b, id, ih, iw);
    std::fill(dxp, dxp + q.c, 0.0);
    for (int64_t tz = 0; tz < q.f[0]; ++tz) {
      const int64_t od = q.out_pos(0, id, tz);
      if (od < 0) continue;
      for (int64_t ty = 0; ty < q.f[1]; ++ty) {
        const int64_t oh = q.out_pos(1, ih, ty);
        if (oh < 0) continue;
        for (int64_t tx = 0; tx < q.f[2]; ++tx) {
          const int64_t ow = q.out_pos(2, iw, tx);
          if (ow < 0) continue;
          const double* dyp = dy + q.y_at(b, od, oh, ow);
          for (int64_t kk = 0; kk < q.k; ++kk) {
            const int64_t grp = kk / q.kg;
            axpy(dyp[kk], w + q.w_at(kk, tz, ty, tx), dxp + grp * q.cg, q.cg);
          }
        }
      }
    }
  });
}

// dw[k,t,cg] = sum over n and output positions o with a valid input position
// i = in_pos(o,t) of dy[n,o,k] * x[n, i, g*Cg + cg].
// Threads split the (k, t) rows of dw; each sweeps all of x and dy once, so
// dw needs no cross-thread reduction and the sum order is fixed.
void bwd_weight(const Geometry& q, const double* x, const double* dy, double* dw, int threads) {
  const int64_t fv = q.filter_volume();
  parallel_ranges(q.k * fv, threads, [&](int64_t begin, int64_t end) {
    std::fill(dw + begin * q.cg, dw + end * q.cg, 0.0);
    for (int64_t b = 0; b < q.n; ++b)
      for (int64_t od = 0; od < q.out[0]; ++od)
        for (int64_t oh = 0; oh < q.out[1]; ++oh)
          for (int64_t ow = 0; ow < q.out[2]; ++ow) {
            const double* dyp = dy + q.y_at(b, od, oh, ow);
            for (int64_t row = begin; row < end; ++row) {
              const int64_t kk = row / fv;
              const int64_t tx = row % q.f[2];
              const int64_t ty = row / q.f[2] % q.f[1];
              const int64_t tz = row / (q.f[2] * q.f[1]) % q.f[0];
              const int64_t id = q.in_pos(0, od, tz);
              const int64_t ih = q.in_pos(1, oh, ty);
              const int64_t iw = q.in_pos(2, ow, tx);
              if (id < 0 || id >= q.in[0] || ih < 0 || ih >= q.in[1] || iw < 0 || iw >= q.in[2])
                continue;
              const int64_t grp = kk / q.kg;
              axpy(dyp[kk], x + q.x_at(b, id, ih, iw) + grp * q.cg, dw + row * q.cg, q.cg);
            }
          }
  });
}

Status check_args(const Problem& p, const void* a, const void* b, const void* out) {
  GCONV_RETURN_IF_ERROR(p.validate());
  if (a == nullptr) return invalid_argument("reference: operand a is null");
  if (b == nullptr) return invalid_argument("reference: operand b is null");
  if (out == nullptr) return invalid_argument("reference: output is null");
  return Status::Ok();
}

// Threads and vectors may throw; the API must not.
template <class Fn>
Status run_guarded(const Fn& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    return {StatusCode::out_of_memory, "reference: out of host memory"};
  } catch (const std::exception& e) {
    return internal_error(std::string("reference: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace

ReferenceOperands reference_operands(const Problem& p) {
  const Geometry q(p);
  switch (p.direction) {
    case Direction::fwd: return {q.x_elements(), q.w_elements(), q.y_elements()};
    case Direction::bwd_data: return {q.y_elements(), q.w_elements(), q.x_elements()};
    case Direction::bwd_weight: return {q.x_elements(), q.y_elements(), q.w_elements()};
  }
  return {};
}

Status reference_conv_f64(const Problem& p, const double* a, const double* b, double* out,
                          int threads) {
  GCONV_RETURN_IF_ERROR(check_args(p, a, b, out));
  const Geometry q(p);
  const int t = resolve_threads(threads);
  return run_guarded([&] {
    switch (p.direction) {
      case Direction::fwd: fwd(q, a, b, out, t); break;
      case Direction::bwd_data: bwd_data(q, a, b, out, t); break;
      case Direction::bwd_weight: bwd_weight(q, a, b, out, t); break;
    }
  });
}

Status reference_conv(const Problem& p, const void* a, const void* b, void* out, int threads) {
  GCONV_RETURN_IF_ERROR(check_args(p, a, b, out));
  const ReferenceOperands n = reference_operands(p);
  Status s;
  GCONV_RETURN_IF_ERROR(run_guarded([&] {
    std::vector<double> a64(n.a), b64(n.b), out64(n.out);
    load_buffer(p.dtype, a, n.a, a64.data());
    load_buffer(p.dtype, b, n.b, b64.data());
    s = reference_conv_f64(p, a64.data(), b64.data(), out64.data(), threads);
    if (s.ok()) store_buffer(p.dtype, out64.data(), n.out, out);
  }));
  return s;
}

}  // namespace gconv
