// Command-line options that describe one Problem, shared by subcommands.
//
//   gconv <cmd> fwd_bf16_n32c256k256g32_h56w56_y3x3_s1_p1_dil1
//   gconv <cmd> --n 32 --c 256 --k 256 --g 32 --h 56 --w 56 --y 3 --x 3 --pad 1
//
// Either a positional spec or the size flags (--n ... --dilation), not both;
// --direction and --dtype apply to either form (overriding a spec's prefix).
// With flags, --c, --k and --w are required, ndim is 3 if --d or --z is
// given, else 2 if --h or --y is, else 1 (as in a spec). --stride, --pad and
// --dilation take one value for every dimension or a comma list, outermost
// first; a pad entry may be "lo:hi".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "gconv/problem.hpp"

namespace gconv::cli {

struct ProblemFlags {
  std::string spec;
  std::optional<int64_t> n, c, k, g, d, h, w, z, y, x;
  std::string stride, pad, dilation;
  std::string direction, dtype;

  // True when the spec or any size flag was given.
  bool any() const;
};

// Adds the options to `cmd` (including the positional "spec"). `flags` must
// outlive the parse.
void add_problem_flags(CLI::App* cmd, ProblemFlags* flags);

// The problem the flags describe, validated. Errors name the flag or the spec.
Result<Problem> problem_from_flags(const ProblemFlags& flags);

}  // namespace gconv::cli
