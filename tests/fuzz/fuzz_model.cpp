// The selector's model files: XGBoost JSON and UBJSON (Forest::from_json,
// from_ubjson), the compact mapped form model.gcf (Forest::load_compact) and
// a whole model folder (Selector::load, model.cpp). Any bytes give a Forest
// or a Status, never a crash, a hang or an exception. A Forest that loads
// must then be safe to evaluate, and gives the same margins with every
// evaluation kernel; one parsed from JSON or UBJSON gives the same margins
// again once written in the compact form and mapped back.
//
// The first byte picks the reader, the rest is the file:
//   0 JSON   1 UBJSON   2 compact, its size and checksum fields set by this
//   target (so that mutations reach the structural checks behind them)
//   3 compact as it comes (the size and checksum checks)
//   4 a model folder: a valid manifest and the file as its model.json/ubj
//   5 a model folder: the file (fields set as in 2) as its model.gcf, the
//     manifest naming its checksum
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_util.hpp"
#include "heuristic/features.hpp"
#include "heuristic/forest.hpp"
#include "heuristic/forest_compact.hpp"
#include "heuristic/model.hpp"

namespace {

using namespace gconv;
using namespace gconv::heuristic;
using detail::Kernel;

// Evaluating a model of millions of features (the readers allow 2^24) would
// only measure memory; the structure checks already ran at load.
constexpr int kMaxEvalFeatures = 4096;
constexpr int kRows = 12;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// Rows that reach every kind of branch: special values, exact copies of the
// input's own bytes as floats (which holds thresholds in compact files).
std::vector<float> rows_for(int features, const std::string& bytes) {
  static const float kSpecial[] = {NAN, -INFINITY, INFINITY, 0.0f, -0.0f, 0.5f, -0.5f, 1e30f, -1e30f, 1.0f, 2.5e-1f};
  std::vector<float> x(size_t(kRows) * size_t(features));
  for (size_t i = 0; i < x.size(); ++i) {
    if ((i / size_t(features)) % 2 == 0 || bytes.size() < 4) {
      x[i] = kSpecial[(i * 7 + i / size_t(features)) % (sizeof kSpecial / sizeof kSpecial[0])];
    } else {
      std::memcpy(&x[i], bytes.data() + (i * 4) % (bytes.size() - 3), 4);
    }
  }
  return x;
}

std::vector<float> margins(const Forest& f, const std::vector<float>& x, Kernel k) {
  std::vector<float> out(kRows, -123.0f);
  f.predict(x.data(), kRows, out.data(), k);
  return out;
}

void check_same(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i]))
      gconv::fuzz::violated(std::string(what) + ": row " + std::to_string(i) + " margin " + std::to_string(a[i]) +
                            " vs " + std::to_string(b[i]));
}

std::string temp_dir() {
  static const std::string d = "/tmp/gconv_fuzz_model_" + std::to_string(::getpid());
  static bool made = (std::filesystem::create_directories(d), true);
  (void)made;
  return d;
}

// Evaluates a loaded forest every way there is; `roundtrip`: also through
// the compact form.
void exercise(const Forest& f, const std::string& bytes, bool roundtrip) {
  const int F = f.num_features();
  if (F < 0) gconv::fuzz::violated("negative feature count");
  if (f.feature_gain().size() != size_t(F) || f.feature_splits().size() != size_t(F))
    gconv::fuzz::violated("importance arrays of the wrong size");
  if (F > kMaxEvalFeatures) return;
  const std::vector<float> x = rows_for(F, bytes);
  const std::vector<float> ref = margins(f, x, Kernel::traverse);
  check_same(ref, margins(f, x, Kernel::automatic), "automatic vs traverse");
  check_same(ref, margins(f, x, Kernel::sets_portable), "sets_portable vs traverse");
  check_same(ref, margins(f, x, Kernel::sets), "sets vs traverse");
  std::vector<float> contrib(size_t(F) + 1);
  f.contributions(x.data(), contrib.data());
  (void)f.num_exact_trees();
  if (!roundtrip) return;
  const std::string path = temp_dir() + "/roundtrip.gcf";
  uint64_t sum = 0;
  if (!f.write_compact(path, &sum).ok()) return;  // an objective too long for the header
  auto g = Forest::load_compact(path, F);
  if (!g.ok()) gconv::fuzz::violated("a written compact file does not load: " + g.status().message());
  if (g->compact_checksum() != sum) gconv::fuzz::violated("compact checksum differs from the one written");
  check_same(ref, margins(*g, x, Kernel::traverse), "compact vs parsed");
  check_same(ref, margins(*g, x, Kernel::sets_portable), "compact sets_portable vs parsed");
}

// The header fields a mutation would almost always break first.
std::string fix_compact(std::string b) {
  if (b.size() < 96) return b;
  const uint64_t size = b.size(), zero = 0;
  std::memcpy(b.data() + 16, &size, 8);
  std::memcpy(b.data() + 24, &zero, 8);
  const uint64_t sum = compact_file_checksum(b.data(), b.size());
  std::memcpy(b.data() + 24, &sum, 8);
  return b;
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

const char* kGpu = R"({"arch": "sm_90a", "clock_mhz": 1980.0, "cuda_core_tflops": {"bf16": 60.0, "fp16": 60.0,
  "fp32": 60.0}, "hbm_gbps": 4332.8736, "l2_bytes": 62914560, "l2_gbps": 7000.0, "launch_us": 2.5,
  "max_blocks_per_sm": 32, "max_threads_per_sm": 2048, "mma_tflops": {"bf16": 450.0, "fp16": 450.0,
  "fp32": 200.0}, "name": "NVIDIA H200", "regs_per_sm": 65536, "sm_count": 132, "smem_bytes_per_clk": 128.0,
  "smem_per_sm_bytes": 233472, "wave_latency_us": 1.0})";

// A model folder holding `file` as `name`; compact: the manifest names it.
void load_folder(const std::string& file, bool compact) {
  namespace fs = std::filesystem;
  const std::string dir = temp_dir() + "/model";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  nlohmann::json m = {{"format", kModelFormat},        {"feature_schema", feature_schema_id()},
                      {"num_features", num_features()}, {"objective", "rank:ndcg"},
                      {"gpu", nlohmann::json::parse(kGpu)}};
  std::string bytes = file;
  if (compact) {
    bytes = fix_compact(file);
    m["compact"] = {{"file", "model.gcf"},
                    {"checksum", checksum_hex(compact_file_checksum(bytes.data(), bytes.size()))},
                    {"source", "model.json"},
                    {"source_checksum", checksum_hex(0)}};
  }
  write(dir + "/manifest.json", m.dump(2));
  write(dir + (compact ? "/model.gcf" : "/model.json"), bytes);
  auto s = Selector::load(dir);
  if (!s.ok()) return;
  if ((*s)->forest().num_features() != num_features())
    gconv::fuzz::violated("a model of another feature count was loaded");
  if ((*s)->forest().objective() != "rank:ndcg") gconv::fuzz::violated("a model of another objective was loaded");
  exercise((*s)->forest(), bytes, false);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gconv::fuzz::quiet_logs();
  // temp_dir()'s string is made before the handler is registered, so that it
  // is destroyed after the handler ran (exit runs them in reverse order).
  (void)temp_dir();
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 6;
  const std::string bytes = gconv::fuzz::as_string(data + 1, size - 1);
  switch (mode) {
    case 0:
    case 1: {
      auto f = mode == 0 ? Forest::from_json(bytes) : Forest::from_ubjson(bytes);
      if (f.ok()) exercise(*f, bytes, true);
      break;
    }
    case 2:
    case 3: {
      const std::string file = mode == 2 ? fix_compact(bytes) : bytes;
      const std::string path = temp_dir() + "/model.gcf";
      write(path, file);
      auto f = Forest::load_compact(path);
      if (f.ok()) exercise(*f, file, false);
      break;
    }
    case 4:
    case 5: load_folder(bytes, mode == 5); break;
  }
  return 0;
}
