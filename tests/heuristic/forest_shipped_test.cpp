// The evaluation kernels on the shipped cascade (models/): its prefilter and
// main model fed the feature rows a selection feeds them (a problem's pool
// kernels, every count from 1 to 70, so that whole groups, the rows after
// them and a lone row all occur), and rows of arbitrary bit patterns
// (subnormals, infinities, -0, NaN). `traverse` (the selection's kernel,
// AVX2 widening where the CPU has it), `traverse_portable` and the set walks
// (float compares on a column-major copy: an independent computation) must
// give equal margins bit for bit. A guard for work on selection latency next
// to forest_reference_test, whose forests are synthetic.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gconv/problem_file.hpp"
#include "heuristic/features.hpp"
#include "heuristic/model.hpp"
#include "kernels/family.hpp"
#include "perf/device_info.hpp"
#include "pool/pool.hpp"
#include "problem/fold.hpp"

#include "forest_kernel_name.hpp"

namespace gconv::heuristic {
namespace {

using detail::Kernel;

const std::string kSource = GCONV_SOURCE_DIR;
constexpr Kernel kOthers[] = {Kernel::traverse_portable, Kernel::sets, Kernel::sets_portable};

using testing::kernel_name;

// Every kernel's margins of rows [0, rows) of x equal traverse's, bit for bit.
void expect_same_margins(const Forest& f, const float* x, int rows, const std::string& what) {
  std::vector<float> want(size_t(rows), -12345.0f);
  f.predict(x, rows, want.data(), Kernel::traverse);
  for (Kernel k : kOthers) {
    std::vector<float> got(size_t(rows), -54321.0f);
    f.predict(x, rows, got.data(), k);
    int bad = 0;
    for (int r = 0; r < rows; ++r)
      if (std::memcmp(&got[size_t(r)], &want[size_t(r)], sizeof(float)) != 0 && ++bad <= 3)
        ADD_FAILURE() << what << ", " << rows << " rows, " << kernel_name(k) << ": row " << r << " " << got[size_t(r)]
                      << " traverse " << want[size_t(r)];
    EXPECT_EQ(bad, 0) << what << ", " << rows << " rows, " << kernel_name(k);
  }
}

class ShippedForest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dev = query_device("");
    ASSERT_TRUE(dev.ok()) << dev.status().to_string();
    device_ = *dev;
    ASSERT_NE(device_.rules, nullptr);
    auto sel = find_model(kSource + "/models", gpu_props_of(device_), nullptr);
    ASSERT_TRUE(sel.ok()) << sel.status().to_string();
    selector_ = *sel;
    ASSERT_NE(selector_->prefilter(), nullptr) << "the shipped model is a cascade";
  }
  // The forests of both stages, prefilter first.
  std::vector<const Forest*> forests() const { return {&selector_->prefilter()->forest(), &selector_->forest()}; }

  DeviceInfo device_;
  std::shared_ptr<const Selector> selector_;
};

TEST_F(ShippedForest, KernelsAgreeOnCandidateFeatureRows) {
  auto entries = read_problem_file(kSource + "/problems/example.csv");
  ASSERT_TRUE(entries.ok()) << entries.status().to_string();
  ASSERT_FALSE(entries->empty());
  // Features as the registry computes them without a GPU: for the model's GPU.
  const GpuProps props = selector_->manifest().gpu;
  const DeviceInfo fdev = device_info_for(props, device_.rules);
  const int nf = selector_->forest().num_features();
  size_t checked = 0;
  for (size_t e = 0; e < entries->size(); e += 2) {
    const Problem p = fold_patches((*entries)[e].problem);
    auto pool = load_pool(*device_.rules, p.direction, p.dtype);
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    std::vector<const KernelTraits*> ks;
    for (const KernelTraits& t : *pool)
      if (t.ndim == p.ndim && ks.size() < 70 && family_of(t).can_implement(t, p, nullptr)) ks.push_back(&t);
    if (ks.empty()) continue;
    std::vector<float> x(ks.size() * size_t(nf));
    compute_features(p, ks.data(), ks.size(), props, fdev, x.data());
    for (const Forest* f : forests())
      for (int rows = 1; rows <= int(ks.size()); rows += rows < 12 ? 1 : 7)
        expect_same_margins(*f, x.data(), rows, p.to_spec());
    ++checked;
  }
  EXPECT_GE(checked, 8u);
}

TEST_F(ShippedForest, KernelsAgreeOnArbitraryBitPatterns) {
  std::mt19937 rng(2027);
  const int nf = selector_->forest().num_features();
  const float specials[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-39f, INFINITY, -INFINITY, 1.0f, -1.0f};
  for (bool with_nan : {false, true})
    for (int rows : {1, 3, 8, 11, 43, 64}) {
      std::vector<float> x(size_t(rows) * size_t(nf));
      for (float& v : x) {
        const uint32_t pick = rng() % 4;
        if (pick == 0) {
          v = specials[rng() % (sizeof specials / sizeof specials[0])];
        } else if (pick == 1) {
          v = std::uniform_real_distribution<float>(-4.0f, 24.0f)(rng);  // the features' usual range
        } else {
          uint32_t bits = uint32_t(rng());
          if (!with_nan && (bits & 0x7f800000u) == 0x7f800000u) bits &= 0xbfffffffu;  // no NaN (or inf)
          std::memcpy(&v, &bits, sizeof v);
        }
      }
      for (const Forest* f : forests())
        expect_same_margins(*f, x.data(), rows, with_nan ? "random bits with NaN" : "random bits");
    }
}

}  // namespace
}  // namespace gconv::heuristic
