// Realigned 16-byte loads (IgemmConfig::kRealign, name suffix _ra) for an
// operand whose channel runs start off a 16-byte boundary: K/G not a multiple
// of 8 (bf16) in bwd_data / bwd_weight, where dy's rows are K elements long
// (r2plus1d's 921-channel layers). cp.async needs an aligned source, so such
// rows used to go out as one 2-byte load per element (vec 1), 8x the load
// instructions. Here a thread reads the two aligned 16-byte chunks that cover
// its 8 elements (the second is usually its neighbour's first, an L1 hit);
// after the tile's MMAs it shifts the bytes into place in registers, zeroes
// the elements past the run's end and stores the vector to shared memory
// (RealignBatch, mainloop.cuh kDeferFlush), so the loads' latency hides
// behind the MMAs instead of stalling the thread at the load.
#pragma once

#include "common/ptx.cuh"

namespace gconv {
namespace igemm {

// The two aligned 16-byte chunks that cover bytes [p, p + nbytes) (nbytes
// <= 16, a multiple of the element size, p aligned to the element size),
// and where p sits in the first (sh). Loaded now, shifted later (finish):
// the shift consumes the loaded values, so doing it at once would wait out
// every load's latency in turn, before the tile's MMAs. end: one past the
// tensor's last byte; the tensor's base is 16-byte aligned (the registry
// checks every pointer), so the chunk at or below p lies inside it, and the
// chunk after it does when it ends at or before end. Past end (only the
// tensor's last vector) the valid bytes go out as 2-byte loads, already in
// place (sh = 0).
struct RawVec {
  uint4 lo, hi;
  int sh, nbytes;
};
// The body of load_raw and load_row_raw: the two chunks where `fits` (and
// the second lies before end), else 2-byte loads, in place (sh = 0), of the
// elements i < nbytes / 2 that `in_row(i)` admits, zeros elsewhere.
template <class InRow>
__device__ __forceinline__ RawVec load_chunks(const char* p, int nbytes, const char* end, bool fits, InRow in_row) {
  RawVec v;
  v.lo = make_uint4(0u, 0u, 0u, 0u);
  v.hi = v.lo;
  v.sh = int(reinterpret_cast<size_t>(p) & 15);
  v.nbytes = nbytes;
  const uint4* q = reinterpret_cast<const uint4*>(p - v.sh);
  if (nbytes > 0 && fits && reinterpret_cast<const char*>(q + 2) <= end) {
    v.lo = __ldg(q);
    v.hi = __ldg(q + 1);
  } else if (nbytes > 0) {
    const unsigned short* h = reinterpret_cast<const unsigned short*>(p);
    u32 r[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (2 * i < nbytes && in_row(i)) r[i / 2] |= u32(__ldg(h + i)) << (16 * (i % 2));
    v.lo = make_uint4(r[0], r[1], r[2], r[3]);
    v.sh = 0;
  }
  return v;
}
__device__ __forceinline__ RawVec load_raw(const char* p, int nbytes, const char* end) {
  return load_chunks(p, nbytes, end, true, [](int) { return true; });
}

// The 16 bytes at p: the chunks shifted left by sh bytes (selects for the
// 8- and 4-byte parts, a funnel shift for the 2-byte part), zeros past
// nbytes.
__device__ __forceinline__ uint4 finish(const RawVec& v) {
  u32 w[8] = {v.lo.x, v.lo.y, v.lo.z, v.lo.w, v.hi.x, v.hi.y, v.hi.z, v.hi.w};
  const bool s8 = v.sh & 8, s4 = v.sh & 4, s2 = v.sh & 2;
#pragma unroll
  for (int i = 0; i < 6; ++i) w[i] = s8 ? w[i + 2] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) w[i] = s4 ? w[i + 1] : w[i];
  u32 r[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) r[i] = s2 ? __funnelshift_r(w[i], w[i + 1], 16) : w[i];
  const int nb = v.nbytes;
#pragma unroll
  for (int i = 0; i < 4; ++i) r[i] = nb >= 4 * i + 4 ? r[i] : nb >= 4 * i + 2 ? (r[i] & 0xffffu) : 0u;
  return make_uint4(r[0], r[1], r[2], r[3]);
}

// The realigned copies of one operand's stage, N per thread: loaded by add(),
// shifted and stored by flush() (after the tile's MMAs, mainloop.cuh).
template <int N>
struct RealignBatch {
  RawVec raw[N];
  u32 dst[N];
  bool use[N];

  // use = false: a slot outside the tile (nothing stored); nbytes = 0 stores zeros.
  __device__ __forceinline__ void add(int i, u32 d, const char* src, int nbytes, const char* end, bool in_tile) {
    raw[i] = load_raw(src, nbytes, end);
    dst[i] = d;
    use[i] = in_tile;
  }
  __device__ __forceinline__ void flush() {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (use[i]) {
        const uint4 v = finish(raw[i]);
        dev::st_shared_v4(dst[i], v.x, v.y, v.z, v.w);
      }
  }
};

// load_raw for a vector of x in a row of `row` elements (W x C, bwd_weight:
// RealignColBatch), its elements at [e, e + nbytes / EB) of the row, where e
// may lie off it: a tap in the padding (the whole vector), or the run
// merge's run crossing the image's left or right edge (OddCgCols). A
// vector whose VEC elements lie in the row takes load_raw's two chunks
// (the row lies in the tensor, so the first chunk does; the second is
// checked against end); else, only at the image's edges and the tensor's
// end, 2-byte loads of exactly its elements in the row, in place (sh = 0),
// zeros elsewhere: nothing is read left of the row (the tensor's first
// row: below its base) or right of it. (The fast test asks for VEC
// elements, not nbytes: one compare; a run's short last vector at the
// right edge goes the slow way.)
template <int EB, int VEC>
__device__ __forceinline__ RawVec load_row_raw(const char* p, int nbytes, const char* end, int e, int row) {
  const int fit = row >= VEC ? row - VEC + 1 : 0;  // e in [0, fit): VEC elements in the row
  return load_chunks(p, nbytes, end, unsigned(e) < unsigned(fit),
                     [&](int i) { return unsigned(e + 2 * i / EB) < unsigned(row); });
}

// RealignBatch for a loader whose columns are fixed per thread (bwd_weight
// x, loaders.cuh GatherMNMajor): the valid bytes are the column's and the
// shared-memory slots the thread's own, so only the chunks, their shift and
// the stage are held; the loader's flush() supplies the rest. (RealignBatch's
// per-copy bytes and address took the 3D 32x64 kernel from 126 to 131
// registers, past the 128 that keep 4 blocks per SM; ptxas, sm_90a.) A
// vector with nothing to read holds zero chunks, so finish() needs no flag
// for it.
template <int N, int EB, int VEC>
struct RealignColBatch {
  uint4 lo[N], hi[N];
  int sh[N];
  u32 stage;

  // load_row_raw: nbytes 0 where the vector's pixel is out along D or H (or
  // its row past the GEMM), e its first element's place in its x row of `row`.
  __device__ __forceinline__ void add(int i, const char* src, int nbytes, const char* end, int e, int row) {
    const RawVec r = load_row_raw<EB, VEC>(src, nbytes, end, e, row);
    lo[i] = r.lo;
    hi[i] = r.hi;
    sh[i] = r.sh;
  }
  // Vector i in place, zeros past nbytes (the column's valid bytes).
  __device__ __forceinline__ uint4 finish(int i, int nbytes) const {
    RawVec r;
    r.lo = lo[i];
    r.hi = hi[i];
    r.sh = sh[i];
    r.nbytes = nbytes;
    return igemm::finish(r);
  }
};

}  // namespace igemm
}  // namespace gconv
