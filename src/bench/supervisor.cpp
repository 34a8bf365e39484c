#include "bench/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <deque>
#include <map>

extern char** environ;

namespace gconv::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  pid_t pid = -1;
  int in = -1, out = -1;  // our ends: write items to `in`, read results from `out`
  bool ready = false;
  bool retiring = false;  // said "#retire": gets no more items
  long item = -1;  // in flight, or -1
  Clock::time_point deadline;
  Clock::time_point spawned;
  std::string buf;
  std::vector<std::string> lines;
  std::string phases;  // the in-flight item's "#phases" line
  int startup_failures = 0;
};

std::string describe_exit(int st) {
  if (WIFSIGNALED(st)) {
    const int sig = WTERMSIG(st);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  return "ended";
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reaps the worker; returns its wait status.
int reap(Worker& w, bool kill_first) {
  close_fd(w.in);
  close_fd(w.out);
  int st = 0;
  if (w.pid > 0) {
    if (kill_first) ::kill(w.pid, SIGKILL);
    while (::waitpid(w.pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  w.pid = -1;
  w.ready = false;
  w.retiring = false;
  w.buf.clear();
  w.lines.clear();
  w.phases.clear();
  return st;
}

Status spawn(const WorkerSlot& slot, Worker& w) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) return io_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return io_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], STDOUT_FILENO);
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env[std::string(*e, size_t(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : slot.env) env[k] = v;
  std::vector<std::string> env_s;
  for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = slot.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (rc != 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    return io_error("cannot start worker '" + slot.argv[0] + "': " + std::strerror(rc));
  }
  w.pid = pid;
  w.in = to_child[1];
  w.out = from_child[0];
  w.ready = false;
  w.item = -1;
  w.spawned = Clock::now();
  return Status::Ok();
}

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

// Restores SIGPIPE on scope exit: writing to a dead worker must be an error
// return, not the death of the parent.
struct IgnoreSigpipe {
  struct sigaction old {};
  IgnoreSigpipe() {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old);
  }
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &old, nullptr); }
};

}  // namespace

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, size_t(n));
}

Status run_supervised(size_t n, const std::function<std::string(size_t)>& encode, const SupervisorOptions& o,
                      const std::function<void(size_t, const ItemResult&)>& on_result, SupervisorStats* stats) {
  if (o.slots.empty()) return invalid_argument("no worker slots");
  IgnoreSigpipe guard;
  SupervisorStats local;
  SupervisorStats& st = stats ? *stats : local;
  std::vector<Worker> ws(o.slots.size());
  std::deque<size_t> queue;
  for (size_t i = 0; i < n; ++i) queue.push_back(i);
  size_t done = 0;
  Status fatal;

  auto deliver = [&](size_t item, const ItemResult& r) {
    if (r.failure == "crashed") ++st.crashed;
    if (r.failure == "timeout") ++st.timed_out;
    ++done;
    on_result(item, r);
  };
  auto finish = [&](Worker& w, ItemResult r) {
    const size_t item = size_t(w.item);
    w.item = -1;
    deliver(item, r);
  };
  auto assign = [&](Worker& w) {
    if (queue.empty() || !w.ready || w.retiring || w.item >= 0) return;
    w.item = long(queue.front());
    queue.pop_front();
    w.lines.clear();
    w.phases.clear();
    w.deadline = o.timeout_s > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                      std::chrono::duration<double>(o.timeout_s))
                                 : Clock::time_point::max();
    // A failed write means the worker is gone: the EOF on its stdout follows.
    write_all(w.in, encode(size_t(w.item)) + "\n");
  };
  // The worker ended (EOF or error on its stdout).
  auto ended = [&](size_t slot) {
    Worker& w = ws[slot];
    const bool was_ready = w.ready;
    const int status = reap(w, false);
    if (w.item >= 0) {
      w.startup_failures = 0;
      finish(w, ItemResult{{}, "crashed", describe_exit(status), ""});
    } else if (!was_ready && ++w.startup_failures >= 3) {
      fatal = internal_error("worker '" + o.slots[slot].argv[0] + "' failed to start 3 times (" + describe_exit(status) +
                             ")");
    }
  };

  while (done < n && fatal.ok()) {
    // Start workers where work remains.
    size_t alive = 0;
    for (size_t s = 0; s < ws.size(); ++s) {
      if (ws[s].pid < 0 && !queue.empty()) {
        GCONV_RETURN_IF_ERROR(spawn(o.slots[s], ws[s]));
        ++st.workers_started;
      }
      if (ws[s].pid >= 0) ++alive;
    }
    if (alive == 0) return internal_error("no worker left while items remain");
    for (auto& w : ws) assign(w);
    // Wait for output or the nearest deadline.
    std::vector<pollfd> fds;
    std::vector<size_t> who;
    auto now = Clock::now();
    long wait_ms = 1000;
    for (size_t s = 0; s < ws.size(); ++s) {
      if (ws[s].pid < 0) continue;
      fds.push_back(pollfd{ws[s].out, POLLIN, 0});
      who.push_back(s);
      if (ws[s].item >= 0 && ws[s].deadline != Clock::time_point::max()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(ws[s].deadline - now).count();
        wait_ms = std::max<long>(0, std::min<long>(wait_ms, left + 1));
      }
    }
    const int pr = ::poll(fds.data(), fds.size(), int(wait_ms));
    if (pr < 0 && errno != EINTR) return io_error(std::string("poll: ") + std::strerror(errno));
    for (size_t f = 0; pr > 0 && f < fds.size(); ++f) {
      if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = ws[who[f]];
      char buf[65536];
      const ssize_t got = ::read(w.out, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ended(who[f]);
        continue;
      }
      w.buf.append(buf, size_t(got));
      size_t nl;
      while ((nl = w.buf.find('\n')) != std::string::npos) {
        std::string line = w.buf.substr(0, nl);
        w.buf.erase(0, nl + 1);
        if (line == "#ready") {
          w.ready = true;
          w.startup_failures = 0;
          st.startup_s += std::chrono::duration<double>(Clock::now() - w.spawned).count();
        } else if (line == "#retire") {
          w.retiring = true;
          close_fd(w.in);
        } else if (line == "#end") {
          if (w.item >= 0) {
            const size_t item = size_t(w.item);
            w.item = -1;
            ItemResult r{std::move(w.lines), "", "", std::move(w.phases)};
            // The next item first: the worker measures it while this one's
            // rows are written (the parent's per-row work left the worker
            // idle before; issue 19: sweep throughput). The item in flight
            // is still the one a crash is charged to.
            assign(w);
            deliver(item, r);
          } else {
            assign(w);
          }
        } else if (line.rfind("#phases", 0) == 0 && w.item >= 0) {
          w.phases = std::move(line);
        } else if (!line.empty() && line[0] != '#' && w.item >= 0) {
          w.lines.push_back(std::move(line));
        }
      }
    }
    now = Clock::now();
    for (auto& w : ws) {
      if (w.pid >= 0 && w.item >= 0 && now >= w.deadline) {
        reap(w, true);
        finish(w, ItemResult{{}, "timeout", "no result within " + std::to_string(o.timeout_s) + " s; worker killed", ""});
      }
    }
  }
  for (auto& w : ws)
    if (w.pid >= 0) {
      close_fd(w.in);  // EOF: the worker exits on its own
      reap(w, false);
    }
  return fatal;
}

}  // namespace gconv::bench
