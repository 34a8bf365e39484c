// Text checks shared by gconv's text readers (problem files, sweeps, JSON
// lines, tuning caches, model manifests), so that an encoding problem is an
// error naming the file instead of a column that silently goes missing (a BOM
// glued to the first header name once made the 'direction' column vanish:
// every row read as fwd), and a line without end is an error instead of
// unbounded growth.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::problem_io {

// The longest line gconv's line-oriented text files may hold. gconv writes
// lines of a few hundred bytes; a line of megabytes is binary data or a file
// with no line ends (every reader would copy it whole, row after row).
inline constexpr size_t kMaxLineBytes = size_t(1) << 20;

// parse_error "<name>:<line>: line of more than <limit> ..." for the first
// line longer than `max_line` bytes (its line end not counted). Linear, no
// allocation.
Status check_line_lengths(std::string_view text, const std::string& name, size_t max_line = kMaxLineBytes);

// The text without a leading UTF-8 byte order mark (spreadsheets write one).
// parse_error "<name>: ..." for text gconv would misread: UTF-16 (a UTF-16
// byte order mark), NUL bytes, carriage returns not followed by a line
// feed (classic Mac line ends: the whole file would be one line), or a line
// longer than kMaxLineBytes (check_line_lengths). LF and CRLF line ends are
// both fine.
Result<std::string_view> check_text_encoding(std::string_view text, const std::string& name);

// A header name as gconv matches it: trimmed of ASCII white space, lower-case.
std::string normalize_column_name(std::string_view raw);

// Header names (normalized) are checked against the columns the reader
// knows: a name that is not one of them, but becomes one once the bytes
// an exporter adds unseen are dropped (non-ASCII such as a BOM or a
// no-break space, control bytes, quotes, spaces: "direction\xC2\xA0",
// "\"spec\"", "lat ency_ms"; visible punctuation is kept), is a parse_error
// "<where>: column N '<raw>' is not a known column; did you mean '<known>'?
// (stray bytes in the header: an encoding problem?)". Unknown names that
// resemble nothing are allowed (files carry extra columns).
Status check_header_names(const std::vector<std::string>& header, const std::vector<std::string>& known,
                          const std::string& where);

}  // namespace gconv::problem_io
