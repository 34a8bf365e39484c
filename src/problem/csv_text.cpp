#include "problem/csv_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace gconv::problem_io {

namespace {

std::string size_text(size_t n) {
  if (n >= (size_t(1) << 20) && n % (size_t(1) << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= (size_t(1) << 10) && n % (size_t(1) << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

Status check_line_lengths(std::string_view text, const std::string& name, size_t max_line) {
  size_t start = 0, line = 1;
  while (start < text.size()) {
    const void* nl = std::memchr(text.data() + start, '\n', text.size() - start);
    const size_t end = nl ? size_t(static_cast<const char*>(nl) - text.data()) : text.size();
    size_t len = end - start;
    if (len > 0 && text[end - 1] == '\r' && nl) --len;  // a CRLF line end is not part of the line
    if (len > max_line)
      return parse_error(name + ":" + std::to_string(line) + ": line of more than " + size_text(max_line) +
                         " (the limit of a line gconv reads; " + (nl ? "" : "no line end: ") +
                         "binary data, or a file without line ends?)");
    if (!nl) break;
    start = end + 1;
    ++line;
  }
  return Status::Ok();
}

Result<std::string_view> check_text_encoding(std::string_view text, const std::string& name) {
  if (text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF')))
    return parse_error(name + ": the text is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8");
  if (const void* nul = std::memchr(text.data(), '\0', text.size()); nul != nullptr) {
    const size_t at = size_t(static_cast<const char*>(nul) - text.data());
    const size_t line = size_t(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
    return parse_error(name + ":" + std::to_string(line) +
                       ": a NUL byte (binary data, or UTF-16 text: save it as UTF-8)");
  }
  for (size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
    if (at + 1 < text.size() && text[at + 1] == '\n') continue;
    if (at + 1 == text.size()) break;  // a final CR: the last line of a CRLF file cut before its LF
    const size_t line = size_t(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
    return parse_error(name + ":" + std::to_string(line) +
                       ": a carriage return without a line feed (classic Mac line ends?); gconv reads LF or "
                       "CRLF line ends");
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  GCONV_RETURN_IF_ERROR(check_line_lengths(text, name));
  return text;
}

std::string normalize_column_name(std::string_view raw) {
  size_t b = 0, e = raw.size();
  while (b < e && std::isspace(static_cast<unsigned char>(raw[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(raw[e - 1]))) --e;
  std::string s(raw.substr(b, e - b));
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

Status check_header_names(const std::vector<std::string>& header, const std::vector<std::string>& known,
                          const std::string& where) {
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string name = normalize_column_name(header[i]);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    // Stray bytes are those an editor or exporter adds unseen: non-ASCII
    // (BOM, no-break and zero-width spaces), control bytes, quotes, spaces.
    // Visible punctuation ("c++", "#d") is the user's own name.
    std::string kept;
    for (unsigned char ch : name)
      if (ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\'') kept += char(ch);
    if (kept.empty() || std::find(known.begin(), known.end(), kept) == known.end()) continue;
    std::string shown;  // the raw name with its stray bytes visible
    for (unsigned char ch : header[i]) {
      if (ch >= 0x20 && ch < 0x7f) {
        shown += char(ch);
      } else {
        static const char* hex = "0123456789ABCDEF";
        shown += std::string("\\x") + hex[ch >> 4] + hex[ch & 15];
      }
    }
    return parse_error(where + ": column " + std::to_string(i + 1) + " '" + shown +
                       "' is not a known column; did you mean '" + kept +
                       "'? (stray bytes in the header: an encoding problem?)");
  }
  return Status::Ok();
}

}  // namespace gconv::problem_io
