// Sweep CSVs, read by four consumers: the CSV splitter (resume, merge), the
// report, merge, and the training / evaluation loader. Properties: no
// crash, hang or exception in any of them; every row of a parsed table has
// the header's field count; the loader never returns a group whose problem
// fails validate() or a time that is not finite and positive.
#include <cmath>

#include "bench/merge.hpp"
#include "fuzz_util.hpp"
#include "heuristic/dataset.hpp"
#include "perf/sweep_csv.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  static const bool quiet = (fuzz::quiet_logs(), true);
  (void)quiet;
  const std::string text = fuzz::as_string(data, size);
  auto t = bench::parse_sweep_csv(text, "s.csv");
  if (t.ok()) {
    for (const auto& row : t->rows)
      if (row.size() != t->header.size()) fuzz::violated("row and header field counts differ");
    (void)bench::merge_sweeps({*t, *t}, nullptr);
  }
  (void)report::parse_sweep_csv(text, "s.csv");
  const std::string path = fuzz::write_temp(".csv", text);
  auto d = heuristic::load_sweeps({path}, nullptr, 1);
  if (d.ok()) {
    for (const Problem& p : d->problems)
      if (!p.validate().ok()) fuzz::violated("dataset holds an invalid problem: " + p.to_spec());
    for (float ms : d->time_ms)
      if (!std::isfinite(ms) || !(ms > 0)) fuzz::violated("dataset holds a bad time");
  }
  std::remove(path.c_str());
  return 0;
}
