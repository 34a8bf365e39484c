// Reading sweep CSV files back (resume, merge, analysis), and preparing an
// output file for appending after an interrupted run.
//
// The reader takes the header by name (columns may be in any order; unknown
// ones are kept), RFC 4180 quoted fields on one line, '#' and blank lines
// skipped, .gz / .zst decompressed (problem_io::read_text_file).
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::bench {

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
