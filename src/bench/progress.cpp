#include "bench/progress.hpp"

#include <unistd.h>

namespace gconv::bench {

Progress::Progress(size_t total, double interval_s, std::FILE* out)
    : total_(total), interval_s_(interval_s), out_(out), tty_(::isatty(::fileno(out)) != 0) {
  start_ = last_ = std::chrono::steady_clock::now();
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::format(size_t done, size_t total, double elapsed, size_t failed) {
  const double rate = elapsed > 0 ? double(done) / elapsed : 0;
  std::string eta = "?";
  if (rate > 0) {
    const long s = long(double(total - (done < total ? done : total)) / rate + 0.5);
    char b[48];
    if (s >= 3600) std::snprintf(b, sizeof b, "%ldh%02ldm", s / 3600, s % 3600 / 60);
    else std::snprintf(b, sizeof b, "%ldm%02lds", s / 60, s % 60);
    eta = b;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu/%zu (%.1f%%), %.1f items/s, ETA %s, %zu failed", done, total,
                total ? 100.0 * double(done) / double(total) : 100.0, rate, eta.c_str(), failed);
  return buf;
}

void Progress::update(size_t done, size_t failed, bool force) {
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (!force && since < (tty_ ? 0.2 : interval_s_)) return;
  last_ = now;
  const std::string s = format(done, total_, elapsed_s(), failed);
  if (tty_) std::fprintf(out_, "\r\033[Kgconv bench: %s", s.c_str());
  else std::fprintf(out_, "gconv bench: %s\n", s.c_str());
  std::fflush(out_);
}

void Progress::finish(size_t done, size_t failed) {
  const std::string s = format(done, total_, elapsed_s(), failed);
  std::fprintf(out_, tty_ ? "\r\033[Kgconv bench: %s\n" : "gconv bench: %s\n", s.c_str());
  std::fflush(out_);
}

}  // namespace gconv::bench
