// Named problem sets: the files bundled under problems/ (see problems/README.md),
// picked by name ("grid_2d", "validation_holdout") or given as a path.
//
// A set named NAME is the first existing file of
//   <dir>/NAME.csv, NAME.csv.gz, NAME.csv.zst, NAME.jsonl
// where <dir> is default_problem_dir() (include/gconv/problem_file.hpp):
// $GCONV_PROBLEMS_DIR when set, else the source tree's problems/ directory.
// The files are read with read_problem_file.
// Thread-safe: no shared state (the environment is read on each call).
#pragma once

#include <string>
#include <vector>

#include "gconv/status.hpp"

namespace gconv {

// The path of a problem set. An existing file path is returned unchanged;
// anything else without a '/' is looked up as a set name (a bundled file name
// with its extension, "grid_2d.csv", is found too). Errors: not_found, with a message
// that lists the available names ("unknown problem set 'x'; available: a, b");
// invalid_argument for an empty argument.
Result<std::string> resolve_problem_set(const std::string& name_or_path);

// Names of the sets in default_problem_dir(), sorted, each once (a name with
// both NAME.csv and NAME.csv.gz is listed once). Empty when there is no
// problems directory.
std::vector<std::string> list_problem_sets();

}  // namespace gconv
