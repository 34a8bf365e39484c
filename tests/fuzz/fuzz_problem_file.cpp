// Problem files (CSV, JSON lines, plain specs; sniffed when the name says
// nothing). The first input byte picks the name the text is read under, the
// rest is the file. Property: no crash, hang or exception, and every problem
// the reader returns passes Problem::validate() (the one validation boundary).
#include "fuzz_util.hpp"
#include "gconv/problem_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  if (size == 0) return 0;
  static const char* kNames[] = {"f.csv", "f.jsonl", "f.txt", "f"};
  const std::string name = kNames[data[0] % 4];
  auto r = parse_problem_text(fuzz::as_string(data + 1, size - 1), name);
  if (!r.ok()) return 0;
  for (const ProblemEntry& e : *r)
    if (Status v = e.problem.validate(); !v.ok()) fuzz::violated("returned an invalid problem: " + v.message());
  return 0;
}
