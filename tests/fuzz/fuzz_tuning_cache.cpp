// The tuning cache file: any text is either entries or a Status naming the
// file (never an exception: a wrong-typed field once escaped Registry::select
// as a JSON type_error).
#include <map>

#include "fuzz_util.hpp"
#include "registry/tuning_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  const TuningKey key{"NVIDIA H200", "0.1.0", "0123456789abcdef0123456789abcdef"};
  std::map<std::string, TuningEntry> entries;
  const Status s = parse_tuning_cache(fuzz::as_string(data, size), "tuning.json", key, &entries);
  if (!s.ok() && s.message().rfind("tuning.json: ", 0) != 0) fuzz::violated("message lacks the file: " + s.message());
  for (const auto& [k, e] : entries)
    if (e.kernel.empty() || !(e.measured_ms >= 0)) fuzz::violated("accepted a bad entry '" + k + "'");
  return 0;
}
