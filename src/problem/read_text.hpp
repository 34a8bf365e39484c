// Whole-file reads with transparent .gz / .zst decompression (internal).
#pragma once

#include <cstddef>
#include <string>

#include "gconv/status.hpp"

namespace gconv::problem_io {

// The file's bytes; a path ending in ".gz" or ".zst" is decompressed. With
// GCONV_HAVE_ZLIB / GCONV_HAVE_ZSTD defined (and the library linked) this is
// done in process; otherwise the `gzip -dc` / `zstd -dc` tools are run.
// io_error names the path and the cause.
//
// Only regular files are read (a FIFO would block, /dev/zero never ends), and
// no file may hold or decompress to more than `max_bytes`: a gzip or zstd
// bomb stops there with an io_error naming the limit, having held at most
// about that much memory. The default is kMaxTextBytes.
inline constexpr size_t kMaxTextBytes = size_t(1) << 30;
Result<std::string> read_text_file(const std::string& path, size_t max_bytes = kMaxTextBytes);

// The path without a trailing ".gz" / ".zst".
std::string strip_compression_suffix(const std::string& path);

}  // namespace gconv::problem_io
