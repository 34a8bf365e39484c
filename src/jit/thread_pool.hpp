// A small fixed-size thread pool, and compile_many on top of it.
//
// NVRTC spends seconds per kernel template instance and is thread-safe across
// programs, so building a pool of kernels ahead of time is parallel work.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gconv/status.hpp"
#include "jit/compiler.hpp"

namespace gconv::jit {

class ThreadPool {
 public:
  // `threads` <= 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int threads);
  // Runs every task already submitted, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Tasks must not throw (library code returns Status); one that does ends
  // the process through std::terminate, as an escaped exception would.
  void submit(std::function<void()> task);
  // Blocks until the queue is empty and no task is running.
  void wait_idle();
  int size() const { return static_cast<int>(workers_.size()); }

 private:
  void worker();
  std::mutex mu_;
  std::condition_variable work_cv_, idle_cv_;
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

// Calls fn(i) for i in [0, n) on `jobs` threads (jobs <= 1: inline, in order).
void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& fn);

struct CompileJob {
  std::string source;
  std::string name;  // for diagnostics, e.g. the kernel name + ".cu"
};

struct CompileBatch {
  std::vector<Result<Cubin>> results;  // results[i] belongs to jobs[i]
  double total_ms = 0;                 // wall time of the whole batch
};

// Compiles every job with the same options on `jobs` threads. Options are
// prepared once; if that fails, every item carries the same error.
CompileBatch compile_many(const std::vector<CompileJob>& batch, const CompileOptions& options, int jobs);

}  // namespace gconv::jit
