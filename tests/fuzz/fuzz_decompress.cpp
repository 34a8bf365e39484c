// The .gz and .zst readers (problem files, sweeps, models) under a small
// decompressed-size cap, so that a bomb the fuzzer builds must stop at the
// cap with an io_error instead of exhausting memory. The first input byte
// picks the format, the rest is the file. Properties: no crash; an ok result
// never exceeds the cap; a result over the cap is refused naming the limit.
#include "fuzz_util.hpp"
#include "problem/read_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gconv;
  if (size == 0) return 0;
  constexpr size_t kCap = size_t(1) << 20;
  const std::string path = fuzz::write_temp(data[0] % 2 ? ".csv.zst" : ".csv.gz", fuzz::as_string(data + 1, size - 1));
  auto r = problem_io::read_text_file(path, kCap);
  if (r.ok() && r->size() > kCap) fuzz::violated("decompressed past the cap");
  if (!r.ok() && r.status().message().find(path) == std::string::npos)
    fuzz::violated("error does not name the file: " + r.status().message());
  std::remove(path.c_str());
  return 0;
}
