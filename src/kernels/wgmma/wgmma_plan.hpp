// Host side of the wgmma family (Hopper warpgroup MMA, warp-specialized):
// the rules an instance enforces, its shared memory, source text and launch
// plan. The problem-side rules, the grid and the kernel parameter are the
// igemm family's (the same implicit GEMMs, the same IgemmParams): only the
// mainloop and its shared-memory layout differ. wgmma_family.cpp wraps these
// into the KernelFamily contract.
//
// Traits of a wgmma kernel (KernelTraits fields):
//   tile_m, tile_n, tile_k   CTA tile (tile_n 32, 64, 128, 192, 256; fwd
//                            also 96, 144: one m64nN instruction of that N;
//                            MN-major B tiles are whole 64-column blocks);
//                            tile_k * element bytes is the swizzle
//                            width (32, 64 or 128 bytes) of K-major tiles, or
//                            (16-bit TMA kernels) 256: a stage of two K
//                            blocks of 64 (block_k) under one barrier pair
//   warps_m                  consumer warpgroups (1 or 2), each owning
//                            tile_m / warps_m rows (64 or 128); warps_n == 1
//   stages                   shared-memory ring depth (2..8)
//   split_mode, split_k      as igemm (parallel: fp32 slices + reduce kernel;
//                            serial: fp32 atomics + convert kernel), or
//                            cluster (2, 4, 8): the splits of a tile are one
//                            thread-block cluster adding their partial tiles
//                            through distributed shared memory in one launch
//   vec                      elements per cp.async of the producer warpgroup
//   tma                      the producer is one thread issuing TMA loads
//                            (fwd: im2col A, tiled B; wgmma/tma.hpp) instead
//                            of the warpgroup's cp.async gathers
//   groups_per_block         1, or 2 / 4 / 8 with packed (bwd_weight: the
//                            group blocks as one block-diagonal GEMM whose
//                            diagonal blocks are stored; packed.hpp)
// threads = 128 * (warps_m + 1): one producer warpgroup, then the consumers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/traits.hpp"

namespace gconv::wgmma {

// Threads of one warpgroup (4 warps): the unit of wgmma and of each role.
inline constexpr int kWarpgroup = 128;
// Threads of a block of gconv_pad (staged copies, stage_rows.cuh).
inline constexpr int kStageThreads = 256;

// The K of one block of a ring stage (WgmmaConfig::kBlockK): one 128-byte
// swizzle row of a TMA kernel (a TMA box is at most that wide), else the
// whole tile_k. A stage holds tile_k / block_k blocks.
inline int block_k(const KernelTraits& t) {
  const int row = t.dtype == DType::fp32 ? 32 : 64;
  return t.tma && t.tile_k > row ? row : t.tile_k;
}

// Rules on the traits alone (tile shapes wgmma and the swizzled layouts can
// express, accumulator registers, producer slot map, shared memory).
bool traits_ok(const KernelTraits& t, std::string* why);

// traits_ok plus the igemm family's problem rules (direction, dtype, ndim,
// channel vectors, 32-bit index ranges), plus tma_ok for a TMA producer.
bool can_implement(const KernelTraits& t, const Problem& p, std::string* why);
bool can_implement(const KernelTraits& t, const igemm::ProblemFacts& f, std::string* why);
// The rules of can_implement after traits_ok: can_implement(t, f, why) is
// traits_ok(t, why) && problem_ok(t, f, why). For callers that know traits_ok
// of a kernel already (the registry, once per pool kernel: traits_ok's
// shared-memory sizing was a tenth of ranking a problem).
bool problem_ok(const KernelTraits& t, const igemm::ProblemFacts& f, std::string* why);

// Dynamic shared memory of gconv_main: the stage ring (each tile aligned to
// 1024 bytes, the swizzle period), the mbarriers, and alignment slack.
size_t smem_bytes(const KernelTraits& t);

// The kernel stages its output tiles in shared memory of its own beside the
// ring (WgmmaConfig::kEpiSep: unsplit tiles of at least
// epilogue_min_outputs() outputs and epilogue_columns > 0), so it runs on
// the persistent grid by default.
bool epilogue_separate(const KernelTraits& t);

// epilogue_separate with rows of whole 128-byte boxes (WgmmaConfig::
// kTmaStore: tile_n * output bytes a multiple of 128): the kernel takes the
// output's tensor map (its third map parameter) and stores through TMA where
// out_map_ok. A 96- or 144-wide 16-bit tile (192 or 288 bytes a row) stores
// from its area with its threads' 16-byte stores.
bool tma_store(const KernelTraits& t);

// The fewest outputs per tile of such kernels: kEpilogueMinOutputs, or
// GCONV_WGMMA_EPI_MIN (read once) for A/B measurements; the instance source
// passes it to WgmmaConfig, so kernels built with another value are other
// cache entries.
inline constexpr int kEpilogueMinOutputs = 128 * 128;
int epilogue_min_outputs();

// The widest wgmma instruction (WgmmaConfig's MAX_N): 256, so tile_n 256
// issues one m64n256 MMA per K step instead of two m64n128; GCONV_WGMMA_INSTR_N
// =128 (read once) restores the narrower ones for A/B measurements (other
// cache entries, as for epilogue_min_outputs). Only a tile_n that MAX_N
// divides is split: 96, 144 and 192 always issue one instruction.
int instr_n_max();

// Threads issuing a TMA producer's loads (WgmmaConfig's ISSUERS): 2, one
// for A's loads and one for B's, so that neither waits while the other's
// instruction is accepted (a single issuer managed one stage of two 8 KB
// boxes per ~800 SM cycles on small layers: GCONV_WGMMA_TRACE, H100,
// seventeenth session); GCONV_WGMMA_TMA_ISSUERS2=0 (read once) restores the
// one issuer for A/B runs (other cache entries).
int tma_issuers();

// GCONV_WGMMA_TRACE=N (read once; 0 when unset): instances compiled with
// per-phase clock traces printed by blocks 0 .. N-1 (a latency study's
// instrument, never a default).
int trace_blocks();

// Columns of the output tile such a staging area holds (WgmmaConfig::
// kEpiCols): the whole tile_n where it fits beside the ring, else 128 or 64
// (staged and stored in turn); 0 when none fits.
int epilogue_columns(const KernelTraits& t);

size_t workspace_bytes(const KernelTraits& t, const Problem& p);
// The same from the problem's facts, checked once for every kernel
// (selection: registry.cpp gemm_applies).
size_t workspace_bytes(const KernelTraits& t, const igemm::ProblemFacts& f);

std::string instance_source(const KernelTraits& t);
std::vector<std::string> entry_points(const KernelTraits& t);
// A staged instance's gconv_pad among its entry points (after gconv_main
// and a reduce kernel), found without building the list on the launch path.
size_t pad_entry(const KernelTraits& t);

// Requires can_implement(t, p); returns internal_error otherwise.
Result<igemm::LaunchPlan> make_plan(const KernelTraits& t, const Problem& p);

}  // namespace gconv::wgmma
