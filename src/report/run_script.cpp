#include "report/run_script.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

extern char** environ;

namespace gconv::report {

std::string source_script(const std::string& name) {
#ifdef GCONV_SOURCE_DIR
  const std::string p = std::string(GCONV_SOURCE_DIR) + "/scripts/" + name;
  std::error_code ec;
  if (std::filesystem::exists(p, ec)) return p;
#endif
  (void)name;
  return "";
}

int run_python_script(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> all = {"python3", script};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int wstatus = 0;
  if (waitpid(pid, &wstatus, 0) < 0) return -1;
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

}  // namespace gconv::report
