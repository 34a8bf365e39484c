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

}  // namespace tinyc
}  // namespace gconv
