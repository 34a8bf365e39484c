// Report arithmetic on real rows: tests/data/sweep_small.csv holds every row of
// 12 problems of the 2026-11-21 H200 public sweep (dense / grouped / depthwise,
// 3D, all directions) and sweep_small_cudnn.jsonl their cuDNN (PyTorch)
// times. Each number is recomputed here independently: rows split by a
// separate CSV reader, specs built from the JSON records by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace gconv::report {
namespace {

const std::string kDir = GCONV_TEST_DATA_DIR;

struct Row {
  std::string kernel, spec, source, status;
  double ms = 0;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f(1);
  bool q = false;
  for (char c : line) {
    if (c == '"') q = !q;
    else if (c == ',' && !q) f.emplace_back();
    else f.back() += c;
  }
  return f;
}

std::vector<Row> read_rows() {
  std::ifstream in(kDir + "/sweep_small.csv");
  std::string line;
  std::getline(in, line);
  const auto head = split(line);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < head.size(); ++i) col[head[i]] = i;
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    auto f = split(line);
    rows.push_back({f[col["kernel"]], f[col["spec"]], f[col["source"]], f[col["status"]], std::stod(f[col["latency_ms"]])});
  }
  return rows;
}

std::string join(const nlohmann::json& v) {  // one value when all are equal
  std::vector<std::string> s;
  for (const auto& x : v) s.push_back(x.is_array() ? std::to_string(int(x[0])) : std::to_string(int(x)));
  bool same = true;
  for (const auto& x : s) same = same && x == s[0];
  if (same) return s[0];
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out;
}

// The spec of a cuDNN record, built as bench/compare_cudnn.py does.
std::string spec_of(const nlohmann::json& r) {
  const int nd = r["nd"];
  const std::string names = nd == 1 ? "w" : nd == 2 ? "hw" : "dhw", fnames = nd == 1 ? "x" : nd == 2 ? "yx" : "zyx";
  std::string s = r["direction"].get<std::string>() + "_bf16_n" + std::to_string(int(r["N"])) + "c" +
                  std::to_string(int(r["C"])) + "k" + std::to_string(int(r["K"])) + "g" + std::to_string(int(r["G"])) +
                  "_";
  for (int i = 0; i < nd; ++i) s += names[size_t(i)] + std::to_string(int(r["spatial"][size_t(i)]));
  s += "_";
  for (int i = 0; i < nd; ++i) s += fnames[size_t(i)] + std::to_string(int(r["kernel"][size_t(i)]));
  return s + "_s" + join(r["stride"]) + "_p" + join(r["pad"]) + "_dil" + join(r["dil"]);
}

Sweep load() {
  auto s = read_sweep_file(kDir + "/sweep_small.csv");
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return *s;
}

TEST(ReportReal, OracleIsTheBruteForceMinimum) {
  const auto rows = read_rows();
  ASSERT_GT(rows.size(), 1000u);
  std::map<std::string, std::pair<double, std::string>> best;
  for (const auto& r : rows) {
    if (r.status != "ok") continue;
    auto it = best.find(r.spec);
    if (it == best.end() || r.ms < it->second.first) best[r.spec] = {r.ms, r.kernel};
  }
  ASSERT_EQ(best.size(), 12u);
  Sweep s = load();
  EXPECT_EQ(s.rows.size(), rows.size());
  ASSERT_EQ(s.problems.size(), 12u);
  for (const auto& o : compute_oracles(s)) {
    const auto& spec = s.problems[size_t(o.problem)].spec;
    ASSERT_TRUE(best.count(spec)) << spec;
    EXPECT_TRUE(o.found);
    EXPECT_EQ(o.ms, best[spec].first) << spec;
    EXPECT_EQ(o.kernel, best[spec].second) << spec;
  }
}

TEST(ReportReal, FailedRowsNeverBecomeTheOracle) {
  Sweep s = load();
  const auto before = compute_oracles(s);
  // Fail each problem's winner, and every row of one kernel name.
  const std::string banned = before[0].kernel;
  for (auto& r : s.rows) {
    if (r.kernel == banned || r.kernel == before[size_t(r.problem)].kernel) r.status = "check_failed";
  }
  std::map<int, double> second;
  for (const auto& r : s.rows)
    if (r.status == "ok" && (!second.count(r.problem) || r.latency_ms < second[r.problem]))
      second[r.problem] = r.latency_ms;
  for (const auto& o : compute_oracles(s)) {
    ASSERT_TRUE(o.found);
    EXPECT_NE(o.kernel, before[size_t(o.problem)].kernel);
    EXPECT_NE(o.kernel, banned);
    EXPECT_GE(o.ms, before[size_t(o.problem)].ms);
    EXPECT_EQ(o.ms, second[o.problem]);
  }
}

TEST(ReportReal, GeomeanAgainstJsonlBaseline) {
  Sweep s = load();
  const auto oracles = compute_oracles(s);
  auto b = baseline_from_jsonl(kDir + "/sweep_small_cudnn.jsonl", "torch_exh_ms");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ASSERT_EQ(b->ms.size(), 12u);
  Comparison c = compare(s, oracles, *b);
  EXPECT_EQ(c.without_baseline, 0u);
  EXPECT_EQ(c.without_oracle, 0u);

  // Independent: records by hand-built spec, oracle by brute force.
  std::map<std::string, std::pair<double, std::string>> best;
  for (const auto& r : read_rows())
    if (r.status == "ok" && (!best.count(r.spec) || r.ms < best[r.spec].first)) best[r.spec] = {r.ms, r.kernel};
  std::ifstream in(kDir + "/sweep_small_cudnn.jsonl");
  std::string line;
  std::map<std::string, std::vector<double>> logs;
  std::map<std::string, std::pair<double, double>> nets;  // network/dir -> (cudnn, gconv)
  while (std::getline(in, line)) {
    auto r = nlohmann::json::parse(line);
    const std::string spec = spec_of(r);
    ASSERT_TRUE(best.count(spec)) << spec;
    const double ratio = r["torch_exh_ms"].get<double>() / best[spec].first;
    const std::string d = r["direction"], src = r["source"];
    const int g = r["G"], cc = r["C"];
    const std::string fam = g == 1 ? "dense" : cc == g ? "depthwise" : "grouped";
    for (const auto& key : {std::string("all"), d, fam + "/" + d}) logs[key].push_back(std::log(ratio));
    if (int(r["nd"]) == 3) logs["3d/" + d].push_back(std::log(ratio));
    nets[src + "/" + d].first += r["torch_exh_ms"].get<double>();
    nets[src + "/" + d].second += best[spec].first;
  }
  size_t checked = 0;
  for (const auto& st : c.slices) {
    if (!logs.count(st.slice)) continue;
    const auto& v = logs[st.slice];
    double mean = 0;
    for (double x : v) mean += x;
    mean /= double(v.size());
    EXPECT_EQ(st.n, v.size()) << st.slice;
    EXPECT_NEAR(st.geomean, std::exp(mean), 1e-12 * std::exp(mean)) << st.slice;
    ++checked;
  }
  EXPECT_EQ(checked, logs.size());  // every independent slice is reported
  ASSERT_EQ(c.networks.size(), nets.size());
  for (const auto& n : c.networks) {
    const auto& want = nets[n.network + "/" + n.direction];
    EXPECT_NEAR(n.baseline_ms, want.first, 1e-12);
    EXPECT_NEAR(n.gconv_ms, want.second, 1e-12);
  }
}

TEST(ReportReal, FamiliesOfTheFixture) {
  Sweep s = load();
  std::map<std::string, Family> fam;
  for (const auto& p : s.problems) fam[p.spec] = p.family;
  EXPECT_EQ(fam.at("fwd_bf16_n32c1152k192g1_h7w7_y1x1_s1_p0_dil1"), Family::dense);
  EXPECT_EQ(fam.at("fwd_bf16_n32c512k512g32_h14w14_y3x3_s1_p1_dil1"), Family::grouped);
  EXPECT_EQ(fam.at("bwd_data_bf16_n32c144k144g144_h56w56_y3x3_s2_p1_dil1"), Family::depthwise);
  EXPECT_EQ(fam.at("fwd_bf16_n4c460k256g1_d8h14w14_z3y1x1_s2,1,1_p1,0,0_dil1"), Family::dense);
  size_t three_d = 0;
  for (const auto& p : s.problems) three_d += p.ndim == 3;
  EXPECT_EQ(three_d, 3u);
}

TEST(ReportReal, OracleNetworkSums) {
  Sweep s = load();
  const auto oracles = compute_oracles(s);
  std::map<std::string, std::pair<size_t, double>> want;
  std::map<std::string, std::pair<double, std::string>> best;
  for (const auto& r : read_rows())
    if (r.status == "ok" && (!best.count(r.spec) || r.ms < best[r.spec].first)) best[r.spec] = {r.ms, r.source};
  for (const auto& [spec, v] : best) {
    auto& w = want[v.second + "/" + spec.substr(0, spec.find("_bf16"))];
    w.first++;
    w.second += v.first;
  }
  const auto sums = oracle_network_sums(s, oracles);
  ASSERT_EQ(sums.size(), want.size());
  for (const auto& n : sums) {
    const auto& w = want.at(n.network + "/" + n.direction);
    EXPECT_EQ(n.problems, w.first);
    EXPECT_NEAR(n.gconv_ms, w.second, 1e-12);
  }
  auto summaries = summarize_sources(s, oracles);
  ASSERT_FALSE(summaries.empty());
  EXPECT_EQ(summaries[0].problems, 12u);
  EXPECT_EQ(summaries[0].rows, s.rows.size());
  EXPECT_EQ(summaries[0].ok, s.rows.size());  // every real row is ok
}

}  // namespace
}  // namespace gconv::report
