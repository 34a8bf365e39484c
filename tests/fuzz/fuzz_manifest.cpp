// A model folder's manifest.json (the file a user may edit or corrupt): any
// text is a Manifest or a Status, never a crash or an exception.
#include "fuzz_util.hpp"
#include "heuristic/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  auto m = heuristic::parse_manifest(fuzz::as_string(data, size));
  if (m.ok() && m->prefilter_keep < 0) fuzz::violated("negative prefilter_keep accepted");
  return 0;
}
