// Progress of a long sweep on stderr: done/total, rate, ETA, failures. On a
// terminal one line updated in place (\r, at most 5 times a second);
// otherwise (a log file, Slurm) one line every `interval_s` seconds.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace gconv::bench {

class Progress {
 public:
  Progress(size_t total, double interval_s = 30, std::FILE* out = stderr);
  void update(size_t done, size_t failed, bool force = false);
  void finish(size_t done, size_t failed);  // final line, newline-terminated
  double elapsed_s() const;
  // "123/456 (27.0%), 4.1 items/s, ETA 1m21s, 2 failed"
  static std::string format(size_t done, size_t total, double elapsed_s, size_t failed);

 private:
  size_t total_;
  double interval_s_;
  std::FILE* out_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace gconv::bench
