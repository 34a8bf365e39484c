// Filter: a boolean expression over kernel trait fields, used by
// `gconv kernels --filter` and by the "exclude" pruning rules of pool files.
//
//   expr    := or
//   or      := and ('||' and)*
//   and     := unary ('&&' unary)*          ('&&' binds tighter than '||')
//   unary   := '!' unary | '(' expr ')' | compare
//   compare := operand (== | != | < | <= | > | >=) operand
//            | bool-field                   (`deterministic`, `tma`)
//   operand := field | integer | name
//
// Fields: tile_m tile_n tile_k warps_m warps_n stages split_k split_mode vec
// groups_per_block family ndim direction dtype block_h block_w per_thread
// window_w window_s (a direct register-window kernel's filter width and W
// stride; 0 for tile kernels) deterministic tma threads smem_bytes, and the derived warp_tile_m (tile_m /
// warps_m), warp_tile_n (tile_n / warps_n) and registers (the arch file's
// register estimate).
// Names are the values of the enum fields: family igemm|direct|wgmma, direction
// fwd|bwd_data|bwd_weight, dtype bf16|fp16|fp32, split_mode
// none|parallel|serial, deterministic and tma true|false. Enum fields take == and !=
// only. A field that does not apply to the kernel's family reads 0 (e.g.
// tile_m of a direct kernel, block_h of an igemm kernel; split_mode of a direct
// kernel is none), so `tile_n >= 128` never matches a direct kernel. The GEMM
// fields apply to igemm and wgmma alike; a wgmma kernel's warps_m is its
// consumer warpgroups and its warps_n is 1 (so warp_tile_m is the rows of one
// consumer warpgroup).
//
// Errors are parse_errors with a 1-based column:
//   "filter: expected a value at column 12", "filter: unknown field 'tile_q' at column 1".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gconv/status.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"

namespace gconv {

class Filter {
 public:
  static Result<Filter> parse(std::string_view expr);

  // Rules are needed for the derived fields smem_bytes and registers.
  bool matches(const ArchRules& rules, const KernelTraits& t) const;
  const std::string& text() const { return text_; }

  // The field names, in the order of the grammar comment (for --help).
  static const std::vector<std::string>& field_names();

  struct Node;  // the parsed tree (filter.cpp)

 private:
  Filter(std::shared_ptr<const Node> root, std::string text) : root_(std::move(root)), text_(std::move(text)) {}
  std::shared_ptr<const Node> root_;
  std::string text_;
};

}  // namespace gconv
