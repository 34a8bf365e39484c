// Problem sets on disk: CSV, JSON lines, or plain text (one spec per line).
//
// Format by file name (after stripping .gz / .zst, which are decompressed
// transparently): .csv -> CSV, .jsonl / .ndjson / .json -> JSON lines,
// .txt / .spec / .specs -> plain text; any other name is sniffed from its first
// meaningful line ('{' -> JSON lines, a line naming a known column -> CSV,
// otherwise plain text).
//
// CSV: RFC 4180 quoting (a quoted field may not span lines); the first line
// that is not blank or a '#' comment is the header; blank and '#' lines are
// skipped. Header names are matched case-insensitively; unknown columns are
// ignored, except a name that is a known column plus bytes an exporter adds
// unseen (a no-break space, quotes, ...), which is a parse_error rather than
// a column silently lost; every row must have as many fields as the header.
// Encodings (all formats): UTF-8, with or without a byte order mark, LF or
// CRLF line ends; UTF-16, NUL bytes and CR-only line ends are parse_errors. An empty cell is
// the same as a missing column. Columns:
//   direction            fwd | bwd_data | bwd_weight            default fwd
//   dtype                bf16 | fp16 | fp32                     default bf16
//   ndim                 1, 2 or 3      default: 3 if d or z has a value, else
//                                       2 if h or y has a value, else 1
//   n, c, k, g           batch, total in/out channels, groups   n, g default 1
//   d, h, w              input sizes (those of the used dims are required)
//   z, y, x              filter sizes                           default 1
//   stride_d, stride_h, stride_w                                default 1
//   pad_d_lo, pad_d_hi, pad_h_lo, pad_h_hi, pad_w_lo, pad_w_hi  default 0
//   dil_d, dil_h, dil_w                                         default 1
//   spec                 a problem spec (grammar in src/problem/spec.cpp); used
//                        when c, k and the size columns are all empty. A
//                        non-empty direction / dtype cell overrides the spec's.
//                        When both are given they must describe one problem.
//   source               free text (e.g. the model name), returned as is
// Columns of an unused dimension (d, z, stride_d, ... in 2D) must be empty or
// hold the neutral value (size 1, stride 1, dilation 1, pad 0).
// The column names of tile_engine's CSVs (the system gconv re-creates:
// "kernel, problem_idx, N, C, K, G, [Di,] Hi, Wi, [Z,] Y, X, [stride_d,]
// stride_h, stride_w, [pad_d,] pad_h, pad_w, ...") are read too:
//   di, hi, wi                  -> d, h, w
//   pad_d, pad_h, pad_w         -> both pad_*_lo and pad_*_hi (symmetric)
//   dilation_d, _h, _w          -> dil_d, dil_h, dil_w
// A header that gives one column twice (pad_h and pad_h_lo, h and hi) is a
// parse_error naming both. A sweep file holds a problem once per kernel:
// each row is returned.
//
// JSON lines: one object per line with the CSV column names as keys (numbers
// as JSON integers), or with the keys of the cuDNN benchmark files:
//   nd, N, C, K, G, spatial[], kernel[], stride[], pad[], dil[] (one entry per
//   used dim, outermost first; a pad entry may be [lo, hi]), direction,
//   dtype, source.
// An object with an "about" key is a header and is skipped; other keys are
// ignored. Blank lines and lines starting with '#' are skipped.
//
// Plain text: one spec per line, optionally followed by whitespace and a
// source text; blank lines and '#' lines are skipped.
//
// Errors: io_error for a file that cannot be read; parse_error for malformed
// input; invalid_problem when a row fails Problem::validate(). The message
// starts with "<path>:<line>:" and names the column or key, e.g.
//   "sets/a.csv:7: column 'h': 'x5' is not an integer".
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv {

struct ProblemEntry {
  Problem problem;
  std::string source;  // free text from the file ("" when absent)
  int64_t line = 0;    // 1-based line in the (decompressed) file
};

// Reads and validates every problem of a file; the first bad row fails the
// whole read. An empty set is not an error.
Result<std::vector<ProblemEntry>> read_problem_file(const std::string& path);

// Parses text already in memory; `name` only labels error messages and picks
// the format as a path would.
Result<std::vector<ProblemEntry>> parse_problem_text(const std::string& text, const std::string& name);

// Writes a CSV with every column above (unused dims hold neutral values, plus
// the spec and source columns), so read_problem_file gives back the same
// problems and sources. Newlines in a source are written as spaces.
Status write_problem_csv(const std::string& path, const std::vector<ProblemEntry>& entries);

// The column names, in the order write_problem_csv writes them.
const std::vector<std::string>& problem_csv_columns();

// Directory of the bundled problem sets: $GCONV_PROBLEMS_DIR when set and
// non-empty, else an installed library's <prefix>/share/gconv/problems (found
// beside the library, as its configs are) when it exists, else the source
// tree's problems/ directory when it exists, else "".
std::string default_problem_dir();

}  // namespace gconv
