// Running the project's Python plotting scripts (gconv report, gconv eval): one way to
// find them and one way to run them (no shell: paths need no quoting).
#pragma once

#include <string>
#include <vector>

namespace gconv::report {

// scripts/<name> of the source tree when it exists, else "".
std::string source_script(const std::string& name);

// Runs `python3 script args...` and waits. Returns its exit code, or -1 when
// python3 cannot be started (or did not exit normally). stdout is flushed
// first so that the script's lines follow the command's own.
int run_python_script(const std::string& script, const std::vector<std::string>& args);

// The plotting scripts' exit code for "matplotlib is missing".
inline constexpr int kNoMatplotlib = 3;

}  // namespace gconv::report
