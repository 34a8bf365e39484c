// Rows of kernels that changed after a sweep measured them (StaleRows,
// gconv train / eval --stale-kernels --fresh): read only from the fresh
// files, counted, and the option's mistakes refused with a message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/sweep.hpp"
#include "heuristic/dataset.hpp"

namespace gconv::heuristic {
namespace {

std::string write_sweep(const std::string& tag, const std::vector<std::pair<std::string, double>>& rows) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gconv_stale_" + tag + "_" + std::to_string(::getpid()) + ".csv")).string();
  auto p = Problem::parse_spec("bwd_weight_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1");
  EXPECT_TRUE(p.ok());
  std::ofstream f(path);
  f << bench::sweep_csv_header() << "\n";
  for (const auto& [kernel, ms] : rows) {
    auto k = parse_kernel_name(kernel);
    EXPECT_TRUE(k.ok()) << kernel;
    bench::SweepRow r = bench::make_row(*k, ProblemEntry{*p, "t", 0}, "ok");
    r.median_ms = r.min_ms = ms;
    f << bench::sweep_csv_row(r, "NVIDIA H200") << "\n";
  }
  return path;
}

const char* kSerial = "igemm_bwd_weight_bf16_2d_m64n64k32_w2x2_s3_sk4s_v8_g1";
const char* kUnsplit = "igemm_bwd_weight_bf16_2d_m64n64k32_w2x2_s3_sk1_v8_g1";
const char* kOther = "igemm_bwd_weight_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1";

TEST(DatasetStale, StaleKernelsAreReadOnlyFromTheFreshFiles) {
  const std::string old_file = write_sweep("old", {{kSerial, 0.050}, {kUnsplit, 0.020}, {kOther, 0.030}});
  const std::string new_file = write_sweep("new", {{kSerial, 0.015}});
  const std::vector<std::string> files = {old_file, new_file};
  auto stale = make_stale_rows("family==igemm && split_mode==serial", {new_file}, files);
  ASSERT_TRUE(stale.ok()) << stale.status().to_string();
  // Listed after the old file: without the option the old row (first) would win.
  LoadStats st;
  auto d = load_sweeps(files, &st, 2, false, &*stale);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  ASSERT_EQ(d->groups(), 1u);
  EXPECT_EQ(st.stale, 1u);
  EXPECT_EQ(st.used, 3u);
  EXPECT_NE(st.summary().find("1 stale rows dropped"), std::string::npos) << st.summary();
  bool found = false;
  for (size_t r = 0; r < d->rows(); ++r)
    if (d->kernel_names[r] == kSerial) {
      found = true;
      EXPECT_FLOAT_EQ(d->time_ms[r], 0.015f);
    }
  EXPECT_TRUE(found);
  // Without the option every row is read and the first measurement is kept.
  LoadStats plain;
  auto all = load_sweeps(files, &plain);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(plain.stale, 0u);
  EXPECT_EQ(plain.duplicates, 1u);
  for (size_t r = 0; r < all->rows(); ++r)
    if (all->kernel_names[r] == kSerial) EXPECT_FLOAT_EQ(all->time_ms[r], 0.050f);
  std::filesystem::remove(old_file);
  std::filesystem::remove(new_file);
}

TEST(DatasetStale, MistakesAreRefusedWithAMessage) {
  const std::vector<std::string> data = {"a.csv", "b.csv"};
  auto bad_filter = make_stale_rows("family==", {"b.csv"}, data);
  ASSERT_FALSE(bad_filter.ok());
  EXPECT_NE(bad_filter.status().message().find("--stale-kernels"), std::string::npos);
  auto not_data = make_stale_rows("family==wgmma", {"c.csv"}, data);
  ASSERT_FALSE(not_data.ok());
  EXPECT_NE(not_data.status().message().find("c.csv is not one of the --data files"), std::string::npos);
  auto fresh_alone = make_stale_rows("", {"b.csv"}, data);
  ASSERT_FALSE(fresh_alone.ok());
  EXPECT_NE(fresh_alone.status().message().find("--fresh needs --stale-kernels"), std::string::npos);
  auto none = make_stale_rows("", {}, data);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(static_cast<bool>(none->is_stale));
}

}  // namespace
}  // namespace gconv::heuristic
