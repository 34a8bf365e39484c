// Index geometry of the implicit GEMMs: how a GEMM row or K index becomes a
// tensor offset. Computed once per thread block; the mainloop only steps
// mixed-radix counters (no division in the K loop).
#pragma once

#include "igemm/config.cuh"

namespace gconv {
namespace igemm {

// Sentinel coordinate of a row or column outside the GEMM: any coordinate
// check against it fails (can_implement keeps real tap coordinates below 2^29).
constexpr int kInvalidCoord = -(1 << 30);

// A mixed-radix counter with ND digits right-aligned in 4 slots (slot 3 is the
// fastest; slot 4-ND is unbounded). step() adds a precomputed increment
// (tile_k in the same radix) with one conditional carry per digit: each digit
// stays below 2 * radix before its carry, so one subtraction suffices.
template <int ND>
struct KCounter {
  static constexpr int kFirst = 4 - ND;
  int v[4];

  __device__ __forceinline__ void set(int x, const int (&radix)[4]) {
#pragma unroll
    for (int d = 3; d > kFirst; --d) {
      v[d] = x % radix[d];
      x /= radix[d];
    }
    v[kFirst] = x;
  }
  __device__ __forceinline__ void step(const int (&radix)[4], const int (&inc)[4]) {
#pragma unroll
    for (int d = kFirst; d < 4; ++d) v[d] += inc[d];
#pragma unroll
    for (int d = 3; d > kFirst; --d) {
      if (v[d] >= radix[d]) {
        v[d] -= radix[d];
        v[d - 1] += 1;
      }
    }
  }
};

// tile_k written in the counter's radix (host and device share it).
__host__ __device__ inline void counter_increment(int nd, const int (&radix)[4], int tile_k, int (&inc)[4]) {
  int x = tile_k;
  for (int d = 3; d >= 0; --d) {
    if (d > 4 - nd) {
      inc[d] = x % radix[d];
      x /= radix[d];
    } else if (d == 4 - nd) {
      inc[d] = x;
    } else {
      inc[d] = 0;
    }
  }
}

// GEMM row -> (n, spatial position) of a gathered operand, K-major side
// (fwd: m -> x at o*stride - pad; bwd_data: phase row -> dy at j).
struct RowGeom {
  int radix[3];       // grid extent per slot
  int mul[3], add[3]; // coordinate = digit * mul + add
  int istr[3];        // elements per unit of coordinate
  int nstride;        // elements per batch item
  int rows;           // valid GEMM rows
};

// Tap side of a gather: the K counter's spatial digits -> coordinates and a
// linear offset (channel digit in slot 3, times lch).
struct TapGeom {
  int base[3], mul[3];  // coordinate = base + digit * mul
  int lstr[3];          // linear offset per unit of digit
  int lin0;             // linear offset of the all-zero digits
  int lch;              // linear offset per channel
  int ext[3];           // valid coordinates: [0, ext)
  int radix[4], inc[4]; // the K counter (taps..., channel)
  int kdim;             // GEMM K extent
  int cvalid;           // realign: channels of the channel digit (its radix rounds them up to vec)
};

// bwd_data stride phase: the input positions i = ph + s * j and the filter
// taps that reach them, f = f0 + t * fs (dy coordinate j + q0 - t * dq).
struct PhaseGeom {
  int ph[3], J[3], T[3], f0[3], fs[3], q0[3], dq[3];
};

template <int NDIM>
__device__ __forceinline__ PhaseGeom make_phase(const IgemmParams& p, int phase) {
  PhaseGeom g;
#pragma unroll
  for (int d = 2; d >= 0; --d) {
    if (d < 3 - NDIM) {
      g.ph[d] = 0; g.J[d] = 1; g.T[d] = 1; g.f0[d] = 0; g.fs[d] = 0; g.q0[d] = 0; g.dq[d] = 0;
      continue;
    }
    const int s = p.stride[d];
    if (s == 1) {
      // One phase: every tap, none of the divisions and remainders below
      // (each a ~20-instruction chain ahead of the block's first load).
      g.ph[d] = 0;
      g.J[d] = p.in[d];
      g.T[d] = p.filt[d];
      g.f0[d] = 0;
      g.fs[d] = p.filt[d] > 1 ? 1 : 0;
      g.q0[d] = p.pad[d];
      g.dq[d] = p.filt[d] > 1 ? p.dil[d] : 0;
      continue;
    }
    const int ph = phase % s;
    phase /= s;
    g.ph[d] = ph;
    g.J[d] = p.in[d] > ph ? (p.in[d] - ph + s - 1) / s : 0;
    // Valid taps: (ph + pad - f * dil) % s == 0. They form an arithmetic
    // progression; F is small, so find its first two terms by scanning.
    int first = -1, second = -1, count = 0;
    for (int f = 0; f < p.filt[d]; ++f) {
      if ((ph + p.pad[d] - f * p.dil[d]) % s == 0) {
        if (count == 0) first = f;
        else if (count == 1) second = f;
        ++count;
      }
    }
    g.T[d] = count;
    g.f0[d] = first < 0 ? 0 : first;
    g.fs[d] = second < 0 ? 0 : second - first;
    g.q0[d] = first < 0 ? 0 : (ph + p.pad[d] - first * p.dil[d]) / s;  // exact
    g.dq[d] = second < 0 ? 0 : (g.fs[d] * p.dil[d]) / s;                // exact
  }
  return g;
}

}  // namespace igemm
}  // namespace gconv
