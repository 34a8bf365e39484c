// The tinyc family's kernel parameter (host: tinyc_family.cpp fills it;
// device: tinyc.cuh). Plain integers and pointers only: NVRTC compiles it
// without host headers.
#pragma once

namespace gconv {
namespace tinyc {

// Shared by the host plan and the kernel:
constexpr int kKc = 64;               // K channels per chunk
constexpr int kPitch = kKc * 2 + 16;  // bytes per halo pixel: 16 bytes of padding keep ldmatrix conflict-free
constexpr int kTpw = 2;               // 16-pixel tasks a warp runs together (they share the B fragments)
constexpr int kMaxC = 8;              // dx channels: one mma N of 8

struct TinycParams {
  const void* dy;  // N, [Do,] Ho, Wo, K (channels last)
  const void* w;   // K, [FD,] FH, FW, C
  void* dx;        // N, [D,] H, W, C
  int n, h, w_, c, k;
  int ho, wo;
  int fh, fw, sh, sw, ph, pw, dh, dw;  // filter, stride, low padding, dilation
  // Depth (3D instances only; a 2D instance never reads them): dx depth,
  // dy depth, filter, stride, low padding, dilation.
  int d, od, fd, sd, pd, dd;
  int tiles_h, tiles_w;                // dx tiles of block_h x block_w per image (per depth slice)
  // The dy rows (cols) a tile reads: tile row t0 = tile_y * block_h / sh;
  // the halo starts at dy row t0 + q0y and spans halo_h rows (q0x, halo_w).
  int q0y, q0x, halo_h, halo_w;
  int kchunks;  // K in chunks of kKc channels (the last one zero-padded)
  // Channels per dy copy: 8 (16-byte cp.async: K % 8 == 0 and dy 16-byte
  // aligned) or 1 (2-byte loads, any K).
  int kvec;
};

// bwd_weight of grouped convolutions with few channels per group (tinyc_wgrad.cuh):
constexpr int kWSlab = 64;    // channels of a block's slab (x and dy alike: C/G == K/G): a 128-byte TMA box row
constexpr int kWMaxTaps = 9;  // filter taps a block keeps accumulators for (fh * fw)

struct TinycWgradParams {
  const void* x;   // N, H, W, C (channels last)
  const void* dy;  // N, Ho, Wo, K
  void* dw_out;    // dw: K, FH, FW, C/G
  // fp32 accumulator of dw (K x taps x C/G) and, after it, kFixupWords words
  // per slab (kernels/fixup.hpp): the slab's first block zeroes its part,
  // every block adds, the last converts it into dw.
  float* acc;
  unsigned long long* flags;
  unsigned long long epoch;
  int n, h, w_, c, k, ho, wo;
  int fh, fw, sh, sw, ph, pw, dh, dw;   // filter, stride, low padding, dilation
  int cg;                               // C/G = K/G (4, 8 or 16); the stems: C (one group, C <= 8)
  int taps;                             // fh * fw
  int tiles_h, tiles_w;                 // dy tiles of block_h x block_w per image
  int steps;                            // n * tiles_h * tiles_w: the reduction's steps of one slab
  int xh, xw;                           // x rows and columns a dy tile reads (its halo; the stems: columns
                                        // rounded up so that a row of C channels a pixel is 16-byte whole)
  int stage_bytes;                      // one stage: the dy box, then the x box, each 1024-byte aligned
  int xu;                               // the stems: pixels a 16-byte unit of an x row holds (8 / gcd(8, C)): a
                                        // box starts on such a unit (TMA faults on a start off 16 bytes)
  int toffs[kWMaxTaps];                 // x halo pixel offset of tap (fy, fx): fy * dh * xw + fx * dw; 0 past taps
};

}  // namespace tinyc
}  // namespace gconv
