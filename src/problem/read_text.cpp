// Reading problem files, compressed or not. Problem sets are small (a few MB
// at most), so a file is read whole into memory.
#include "problem/read_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#ifdef GCONV_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef GCONV_HAVE_ZSTD
#include <zstd.h>
#endif

extern char** environ;

namespace gconv::problem_io {
namespace {

// kMaxTextBytes (read_text.hpp): the biggest dataset gconv ships
// decompresses to about 0.2 GB, so 1 GiB leaves room to grow while a gzip or
// zstd bomb stops with a message instead of taking gigabytes.

std::string limit_text(size_t limit) {
  if (limit >= (size_t(1) << 30) && limit % (size_t(1) << 30) == 0) return std::to_string(limit >> 30) + " GiB";
  if (limit >= (size_t(1) << 20) && limit % (size_t(1) << 20) == 0) return std::to_string(limit >> 20) + " MiB";
  return std::to_string(limit) + " bytes";
}

Status too_large(const std::string& path, size_t limit) {
  return io_error(path + ": larger than the " + limit_text(limit) +
                  " limit of a text file gconv reads (decompressed)");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::string> read_plain(const std::string& path, size_t limit) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string out;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    if (size_t(f.gcount()) > limit - out.size()) return too_large(path, limit);
    out.append(buf, size_t(f.gcount()));
  }
  if (f.bad()) return io_error(path + ": read failed");
  return out;
}

// Drains a file descriptor to EOF, or until more than `limit` bytes came
// (then false: the caller stops the writer).
bool drain(int fd, size_t limit, std::string* out) {
  char buf[1 << 16];
  while (true) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r > 0) {
      if (size_t(r) > limit - out->size()) return false;
      out->append(buf, size_t(r));
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      return true;
    }
  }
}

// Runs `tool -dc path` and returns its stdout. No shell is involved, so any
// path is safe to pass. The tool's stderr is captured for the error message.
[[maybe_unused]] Result<std::string> decompress_with_tool(const char* tool, const std::string& path, size_t limit) {
  // Check readability first so a missing file is an io_error naming the path,
  // not a tool message.
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return io_error(path + ": pipe failed");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return io_error(path + ": pipe failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::string tool_s = tool, flag = "-dc";
  std::vector<char*> argv{tool_s.data(), flag.data(), const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, tool, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return io_error(path + ": cannot run '" + tool + "' to decompress (" + std::strerror(rc) + ")");
  }
  // The tools write little to stderr (well under a pipe buffer), so reading
  // stdout to EOF first cannot deadlock.
  std::string data, err;
  const bool fits = drain(out_pipe[0], limit, &data);
  if (!fits) ::kill(pid, SIGKILL);  // a bomb: stop the tool instead of reading on
  else drain(err_pipe[0], size_t(1) << 20, &err);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!fits) return too_large(path, limit);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    // One-line messages: the tools' lines joined with "; ".
    std::string line;
    for (char ch : err) {
      if (ch == '\n' || ch == '\r') {
        if (!line.empty() && line.back() != ' ') line += "; ";
      } else {
        line += ch;
      }
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
    err = line;
    return io_error(path + ": '" + tool + " -dc' failed" + (err.empty() ? "" : ": " + err));
  }
  return data;
}

#ifdef GCONV_HAVE_ZLIB
Result<std::string> gunzip(const std::string& path, size_t limit) {
  // gzread passes data without a gzip header through unchanged; a .gz file
  // that is not gzip is an error here, as it is for `gzip -dc`.
  {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
    unsigned char magic[2] = {0, 0};
    probe.read(reinterpret_cast<char*>(magic), 2);
    if (probe.gcount() != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
      return io_error(path + ": gzip decompression failed: not in gzip format");
  }
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string out;
  char buf[1 << 16];
  int r = 0;
  while ((r = gzread(f, buf, sizeof buf)) > 0) {
    if (size_t(r) > limit - out.size()) {
      gzclose(f);
      return too_large(path, limit);
    }
    out.append(buf, size_t(r));
  }
  // A truncated file ends with r == 0 and Z_BUF_ERROR, not with r < 0.
  int errnum = Z_OK;
  const std::string msg = gzerror(f, &errnum);
  gzclose(f);
  if (r < 0 || errnum != Z_OK) return io_error(path + ": gzip decompression failed: " + msg);
  return out;
}
#endif

#ifdef GCONV_HAVE_ZSTD
Result<std::string> unzstd(const std::string& path, size_t limit) {
  auto raw = read_plain(path, limit);
  if (!raw.ok()) return raw.status();
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  if (!ctx) return io_error(path + ": zstd context allocation failed");
  std::string out;
  std::vector<char> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{raw->data(), raw->size(), 0};
  size_t last = 0;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    last = ZSTD_decompressStream(ctx, &o, &in);
    if (ZSTD_isError(last)) {
      std::string msg = ZSTD_getErrorName(last);
      ZSTD_freeDCtx(ctx);
      return io_error(path + ": zstd decompression failed: " + msg);
    }
    if (o.pos > limit - out.size()) {
      ZSTD_freeDCtx(ctx);
      return too_large(path, limit);
    }
    out.append(buf.data(), o.pos);
  }
  ZSTD_freeDCtx(ctx);
  // A non-zero hint after all input means the last frame was cut short.
  if (last != 0) return io_error(path + ": zstd decompression failed: truncated input");
  return out;
}
#endif

}  // namespace

std::string strip_compression_suffix(const std::string& path) {
  if (ends_with(path, ".gz")) return path.substr(0, path.size() - 3);
  if (ends_with(path, ".zst")) return path.substr(0, path.size() - 4);
  return path;
}

Result<std::string> read_text_file(const std::string& path, size_t max_bytes) {
  // Only regular files: a FIFO would block forever, a device such as
  // /dev/zero never ends, a directory is no text.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return io_error(path + ": not a regular file");
  if (ends_with(path, ".gz")) {
#ifdef GCONV_HAVE_ZLIB
    return gunzip(path, max_bytes);
#else
    return decompress_with_tool("gzip", path, max_bytes);
#endif
  }
  if (ends_with(path, ".zst")) {
#ifdef GCONV_HAVE_ZSTD
    return unzstd(path, max_bytes);
#else
    return decompress_with_tool("zstd", path, max_bytes);
#endif
  }
  return read_plain(path, max_bytes);
}

}  // namespace gconv::problem_io
