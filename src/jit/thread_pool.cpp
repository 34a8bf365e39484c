#include "jit/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

namespace gconv::jit {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_.reserve(threads);
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(task));
  }
  work_cv_.notify_one();
}

void ThreadPool::wait_idle() {
  std::unique_lock<std::mutex> lk(mu_);
  idle_cv_.wait(lk, [this] { return queue_.empty() && running_ == 0; });
}

void ThreadPool::worker() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lk(mu_);
      // Drain the queue before stopping so the destructor never drops work.
      work_cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    // A task that throws must not end the process (std::terminate from a
    // worker thread): it is abandoned, and callers that fill result slots
    // report the empty slot (compile_many: an internal error naming it).
    try {
      task();
    } catch (...) {
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      --running_;
      if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
    }
  }
}

void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& fn) {
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  ThreadPool pool(static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), n)));
  for (size_t i = 0; i < n; ++i) pool.submit([&fn, i] { fn(i); });
  pool.wait_idle();
}

CompileBatch compile_many(const std::vector<CompileJob>& batch, const CompileOptions& options, int jobs) {
  auto t0 = std::chrono::steady_clock::now();
  CompileBatch out;
  auto prepared = prepare(options);
  if (!prepared.ok()) {
    out.results.assign(batch.size(), Result<Cubin>(prepared.status()));
    return out;
  }
  // Result<Cubin> has no default state; fill slots in place, then move out.
  std::vector<std::optional<Result<Cubin>>> slots(batch.size());
  parallel_for(batch.size(), jobs, [&](size_t i) { slots[i].emplace(compile(batch[i].source, batch[i].name, *prepared)); });
  out.results.reserve(batch.size());
  for (size_t i = 0; i < slots.size(); ++i)
    out.results.push_back(slots[i] ? std::move(*slots[i])
                                   : Result<Cubin>(internal_error("compiling " + batch[i].name + " threw an exception")));
  out.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace gconv::jit
