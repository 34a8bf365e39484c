// Whole-file reads with transparent .gz / .zst decompression (internal).
#pragma once

#include <string>

#include "gconv/status.hpp"

namespace gconv::problem_io {

// The file's bytes; a path ending in ".gz" or ".zst" is decompressed. With
// GCONV_HAVE_ZLIB / GCONV_HAVE_ZSTD defined (and the library linked) this is
// done in process; otherwise the `gzip -dc` / `zstd -dc` tools are run.
// io_error names the path and the cause.
Result<std::string> read_text_file(const std::string& path);

// The path without a trailing ".gz" / ".zst".
std::string strip_compression_suffix(const std::string& path);

}  // namespace gconv::problem_io
