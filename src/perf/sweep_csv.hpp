// The sweep CSV format: its schema, the writer's row formatting, reading
// files back (resume, merge, analysis, the selector's training data), and
// preparing an output file for appending after an interrupted run.
//
// It sits in perf/, below heuristic/, registry/ and bench/, because both the
// benchmark (which writes sweeps) and the selector's training (which reads
// them) need it. The namespace stays gconv::bench (where the code was before
// the layering fix, issue 19): renaming it would touch every bench, report,
// cli and test user for no change in behaviour.
//
// The reader takes the header by name (columns may be in any order; unknown
// ones are kept), RFC 4180 quoted fields on one line, '#' and blank lines
// skipped, .gz / .zst decompressed (problem_io::read_text_file).
//
// CSV schema (sweep_csv_header(); one row per (kernel, problem, provider)):
//   kernel          kernel_name(traits), or the provider's own name (cudnn rows)
//   family          igemm | direct | the provider name for non-gconv rows
//   tile_m tile_n tile_k warps_m warps_n stages split_mode split_k vec
//   groups_per_block block_h block_w per_thread deterministic
//                   the KernelTraits fields (split_mode none|parallel|serial,
//                   deterministic 0|1); empty where the field is not one of
//                   the kernel family's (block_* of igemm, tile_* of direct)
//                   and for non-gconv rows
//   <problem_csv_columns()>  direction, dtype, ndim, n, c, k, g, d, h, w, ...,
//                   spec, source: exactly the columns of write_problem_csv, so
//                   a sweep file is also a problem file (read_problem_file)
//   provider        gconv | cudnn
//   gpu             CUDA device name ("none" without a device)
//   gconv_version   GCONV_VERSION of the binary that measured the row
//   status          ok | unsupported | compile_error | launch_error |
//                   wrong_result | timeout | crashed
//   latency_ms      median of the timed repetitions (0 unless ok)
//   min_ms          fastest repetition
//   tflops, gbps    from latency_ms, Problem::flops() and min_bytes()
//   check           comparison summary with the naive kernel, or the error text
// The key of a row is (kernel, spec, provider): resume and merge use it.
// Fields are RFC 4180 quoted when needed; a row never spans lines.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"

namespace gconv::bench {

// One measured (or failed) pair; sweep_csv_row formats it.
struct SweepRow {
  std::string kernel, spec, source, status, check;
  double median_ms = 0, min_ms = 0, tflops = 0, gbps = 0;
  std::string provider = "gconv";
  std::string family;                   // default: to_string(traits->family), else provider
  std::optional<KernelTraits> traits;   // gconv rows; empty for other providers
  std::optional<Problem> problem;       // default: parsed from spec
};

// CSV header and row formatting (one function each, used by every writer).
// The row has no trailing newline.
std::string sweep_csv_header();
const std::vector<std::string>& sweep_csv_columns();
std::string sweep_csv_row(const SweepRow& r, const std::string& gpu);
// RFC 4180 quoting of one field (newlines become spaces).
std::string csv_field(const std::string& s);

// Splits one CSV line into fields (RFC 4180; an unterminated quote runs to the
// end of the line).
std::vector<std::string> split_csv_line(const std::string& line);

struct SweepTable {
  std::string name;                            // the file, for messages
  std::vector<std::string> header;             // names trimmed and lower-case
  std::vector<std::vector<std::string>> rows;  // each has header.size() fields
  std::vector<std::string> lines;              // the raw text of each row
  std::vector<int64_t> line_no;                // 1-based line of each row in the (decompressed) file

  int column(const std::string& name) const;  // -1 when absent
  // rows[i][column(name)], or "" when the column is absent.
  const std::string& get(size_t i, const std::string& name) const;
  // "<name>:<line>" of row i, the start of every message about it.
  std::string where(size_t i) const;
};

// parse_error (with path:line) for a row whose field count differs from the
// header's, for text gconv would misread (UTF-16, NUL bytes, CR-only line
// ends; a UTF-8 byte order mark is skipped), for a duplicate column and for
// a header name that is a sweep column plus stray bytes
// (problem_io::check_header_names); io_error for an unreadable file. An
// empty file gives an empty table.
Result<SweepTable> read_sweep_csv(const std::string& path);
Result<SweepTable> parse_sweep_csv(const std::string& text, const std::string& name);

// Rows that a reader leaves out (an invalid problem: stride 0, G not
// dividing C, ...), counted, with the first one's place and reason. Under
// --strict (eval, train, report, merge) the first such row is an error
// instead: `strict` makes add() return that error.
struct SkippedRows {
  bool strict = false;
  size_t count = 0;
  std::string first;  // "<file>:<line>: <why>"
  // Records a skipped row; with `strict`, the invalid_argument to return.
  Status add(const std::string& where, const std::string& why);
  // "" when none, else "N rows of invalid problems skipped, the first: <first>".
  std::string summary() const;
};

// The identity of a row: kernel, spec, provider.
using RowKey = std::tuple<std::string, std::string, std::string>;
RowKey row_key(const SweepTable& t, size_t i);

// Makes `path` ready to append rows of `header`: creates it with the header
// when missing or empty; otherwise truncates a torn last line (no trailing
// newline: the writer died mid-row), checks that its header equals `header`
// (invalid_argument otherwise), and returns the keys of its rows in *done.
// *dropped_bytes is the size of the torn tail removed (0 when none).
Status prepare_append(const std::string& path, const std::string& header, std::set<RowKey>* done,
                      size_t* dropped_bytes = nullptr);

// Appends `line` + '\n' with one write(2) to an O_APPEND descriptor, so a
// crash leaves at most one torn line, which prepare_append removes.
class RowWriter {
 public:
  RowWriter() = default;
  ~RowWriter();
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;
  Status open(const std::string& path);  // "" or "-" = stdout
  Status write_line(const std::string& line);

 private:
  int fd_ = -1;
  bool owned_ = false;
};

}  // namespace gconv::bench
