// Problem files (CSV, JSON lines, plain specs; sniffed when the name says
// nothing). The first input byte picks the name the text is read under, the
// rest is the file. Properties: no crash, hang or exception; every problem
// the reader returns passes Problem::validate() (the one validation
// boundary); and write_problem_csv of what was read reads back the same
// problems (the CSV writer and reader are inverse).
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
  if (r->empty()) return 0;
  const std::string path = fuzz::write_temp(".csv", "");
  if (!write_problem_csv(path, *r).ok()) fuzz::violated("write_problem_csv failed");
  auto back = read_problem_file(path);
  std::remove(path.c_str());
  if (!back.ok()) fuzz::violated("written CSV does not read back: " + back.status().message());
  if (back->size() != r->size()) fuzz::violated("written CSV reads back another row count");
  for (size_t i = 0; i < r->size(); ++i)
    if (!((*back)[i].problem == (*r)[i].problem)) fuzz::violated("round trip changed " + (*r)[i].problem.to_spec());
  return 0;
}
