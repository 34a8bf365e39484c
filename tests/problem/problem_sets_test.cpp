// Problem sets: name lookup, and the committed files under problems/ (every
// one loads; the holdout split is disjoint, whole-model and 10-20% of the
// real-network shapes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <unistd.h>

#include "gconv/problem_file.hpp"
#include "gconv/problem_sets.hpp"

namespace gconv {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kProblems = std::string(GCONV_SOURCE_DIR) + "/problems";
// The sets made by problems/tools/*.py.
const std::set<std::string> kGenerated = {"torchvision_2d", "torchvision_3d", "audio_1d",    "grid_2d",
                                          "grid_3d",        "grid_1d",        "train_real",  "validation_holdout",
                                          "train_odd",      "holdout_odd",    "holdout_nets", "small_classes",
                                          "train_grouped"};
// Sets for validation only (problems/README.md: never trained on), and the
// sets a training run reads.
const std::vector<std::string> kHoldout = {"validation_holdout", "holdout_odd", "holdout_nets", "small_classes"};
const std::vector<std::string> kTraining = {"train_real", "train_sweep", "train_odd",    "grid_1d",
                                            "grid_2d",    "grid_3d",     "train_grouped"};

// Points GCONV_PROBLEMS_DIR at `dir` for one scope, then restores it.
class ProblemsDirGuard {
 public:
  explicit ProblemsDirGuard(const std::string& dir) {
    if (const char* v = std::getenv("GCONV_PROBLEMS_DIR")) old_ = v;
    ::setenv("GCONV_PROBLEMS_DIR", dir.c_str(), 1);
  }
  ~ProblemsDirGuard() {
    if (old_) {
      ::setenv("GCONV_PROBLEMS_DIR", old_->c_str(), 1);
    } else {
      ::unsetenv("GCONV_PROBLEMS_DIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

std::vector<ProblemEntry> load(const std::string& name) {
  auto path = resolve_problem_set(name);
  EXPECT_TRUE(path.ok()) << path.status().to_string();
  if (!path.ok()) return {};
  auto rows = read_problem_file(*path);
  EXPECT_TRUE(rows.ok()) << rows.status().to_string();
  return rows.ok() ? *rows : std::vector<ProblemEntry>{};
}

std::set<std::string> split_models(const std::string& source) {
  std::set<std::string> out;
  std::stringstream ss(source);
  for (std::string m; std::getline(ss, m, ';');)
    if (!m.empty()) out.insert(m);
  return out;
}

std::multiset<std::string> specs(const std::vector<ProblemEntry>& rows) {
  std::multiset<std::string> s;
  for (const auto& r : rows) s.insert(r.problem.to_spec());
  return s;
}

TEST(ProblemSets, BundledNamesResolve) {
  ProblemsDirGuard env(kProblems);
  const auto names = list_problem_sets();
  for (const auto& expected : kGenerated) EXPECT_THAT(names, ::testing::Contains(expected));
  for (const auto& name : names) {
    auto path = resolve_problem_set(name);
    ASSERT_TRUE(path.ok()) << name << ": " << path.status().to_string();
    EXPECT_EQ(fs::path(*path).parent_path(), fs::path(kProblems));
    EXPECT_EQ(fs::path(*path).filename().string().rfind(name + ".", 0), 0u) << *path;
  }
  // A file name with its extension is found in the directory too.
  auto by_file = resolve_problem_set("example.csv");
  ASSERT_TRUE(by_file.ok()) << by_file.status().to_string();
  EXPECT_EQ(*by_file, kProblems + "/example.csv");
}

TEST(ProblemSets, ExistingPathIsReturnedAsIs) {
  const std::string path = kProblems + "/example.csv";
  auto r = resolve_problem_set(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, path);
}

TEST(ProblemSets, UnknownNameListsTheAvailableSets) {
  ProblemsDirGuard env(kProblems);
  auto r = resolve_problem_set("no_such_set");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::not_found);
  EXPECT_THAT(r.status().message(), HasSubstr("'no_such_set'"));
  EXPECT_THAT(r.status().message(), HasSubstr("grid_2d"));
  EXPECT_THAT(r.status().message(), HasSubstr("validation_holdout"));
  // A path that does not exist is not looked up as a name.
  auto p = resolve_problem_set("missing/grid_2d");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::not_found);
  EXPECT_EQ(resolve_problem_set("").status().code(), StatusCode::invalid_argument);
}

TEST(ProblemSets, LookupOrderAndEnvironmentDirectory) {
  const fs::path dir = fs::temp_directory_path() / ("gconv_psets_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub.csv");  // a directory is not a set
  for (const char* f : {"a.csv", "a.jsonl", "b.jsonl", "c.csv.zst", "notes.md"}) std::ofstream(dir / f) << "\n";
  {
    ProblemsDirGuard env(dir.string());
    EXPECT_EQ(list_problem_sets(), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(*resolve_problem_set("a"), (dir / "a.csv").string());  // .csv before .jsonl
    EXPECT_EQ(*resolve_problem_set("b"), (dir / "b.jsonl").string());
    EXPECT_EQ(*resolve_problem_set("c"), (dir / "c.csv.zst").string());
    auto r = resolve_problem_set("notes");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("available: a, b, c"));
  }
  {
    ProblemsDirGuard env((dir / "absent").string());
    EXPECT_TRUE(list_problem_sets().empty());
    EXPECT_THAT(resolve_problem_set("a").status().message(), HasSubstr("available: (none)"));
  }
  fs::remove_all(dir);
}

// The real check of the generated files: every committed CSV loads (so each
// row is a valid Problem whose spec column matches its columns).
TEST(ProblemSets, EveryCommittedCsvLoads) {
  std::set<std::string> generated;
  for (const auto& e : fs::directory_iterator(kProblems)) {
    const std::string name = e.path().filename().string();
    const bool csv = name.size() > 4 && (name.ends_with(".csv") || name.ends_with(".csv.gz"));
    if (!csv) continue;
    auto rows = read_problem_file(e.path().string());
    ASSERT_TRUE(rows.ok()) << rows.status().to_string();
    EXPECT_FALSE(rows->empty()) << name;
    const std::string set = name.substr(0, name.find('.'));
    if (!kGenerated.count(set)) continue;
    generated.insert(set);
    // A generated set holds a problem once, with its source (the models or the grid stratum).
    const auto s = specs(*rows);
    EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), rows->size()) << name << " has duplicates";
    for (const auto& r : *rows) EXPECT_FALSE(r.source.empty()) << name << ":" << r.line;
  }
  EXPECT_EQ(generated, kGenerated);
}

TEST(ProblemSets, GridSizesAndRanges) {
  ProblemsDirGuard env(kProblems);
  const std::map<std::string, std::pair<size_t, int>> expect = {
      {"grid_2d", {3000, 2}}, {"grid_3d", {600, 3}}, {"grid_1d", {600, 1}}};
  for (const auto& [name, want] : expect) {
    const auto rows = load(name);
    EXPECT_EQ(rows.size(), want.first) << name;
    for (const auto& r : rows) {
      EXPECT_EQ(r.problem.ndim, want.second) << name << ":" << r.line;
      EXPECT_GE(r.problem.flops(), 1e6) << name << ":" << r.line;
      EXPECT_LE(r.problem.flops(), 1e12) << name << ":" << r.line;
    }
  }
}

// The holdout: disjoint from training, the union is every real shape, whole
// models held out, 10-20% of the rows.
TEST(ProblemSets, HoldoutIsDisjointWholeModelsAndSized) {
  ProblemsDirGuard env(kProblems);
  const auto holdout = load("validation_holdout");
  const auto train = load("train_real");
  std::vector<ProblemEntry> real;
  for (const char* set : {"torchvision_2d", "torchvision_3d", "audio_1d"}) {
    auto rows = load(set);
    ASSERT_FALSE(rows.empty()) << set;
    real.insert(real.end(), rows.begin(), rows.end());
  }
  const auto hs = specs(holdout), ts = specs(train);
  for (const auto& s : hs) EXPECT_EQ(ts.count(s), 0u) << "in both holdout and train_real: " << s;
  std::multiset<std::string> both = hs;
  both.insert(ts.begin(), ts.end());
  EXPECT_EQ(both, specs(real));

  const double share = double(holdout.size()) / double(real.size());
  EXPECT_GE(share, 0.10);
  EXPECT_LE(share, 0.20);

  // The held-out models are listed in the header comment.
  std::ifstream f(kProblems + "/validation_holdout.csv");
  ASSERT_TRUE(f) << "validation_holdout.csv (plain CSV) is expected";
  std::set<std::string> held;
  const std::string tag = "# held-out models: ";
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(tag, 0) != 0) continue;
    std::stringstream ss(line.substr(tag.size()));
    for (std::string m; ss >> m;) held.insert(m);
  }
  ASSERT_FALSE(held.empty());
  for (const auto& r : holdout) {
    const auto models = split_models(r.source);
    const bool has_held =
        std::any_of(models.begin(), models.end(), [&](const std::string& m) { return held.count(m) > 0; });
    EXPECT_TRUE(has_held) << "holdout row without a held-out model: " << r.source;
  }
  for (const auto& r : train)
    for (const auto& m : split_models(r.source)) EXPECT_EQ(held.count(m), 0u) << "held-out model in train: " << m;
}

// No holdout file shares a problem with a file that training reads; the
// generated holdouts (odd shapes, networks) share no layer shape either:
// they measure shapes the model has not seen, not new batch sizes.
TEST(ProblemSets, HoldoutFilesShareNothingWithTrainingFiles) {
  ProblemsDirGuard env(kProblems);
  std::map<std::string, std::string> train_specs, train_shapes;  // -> the set holding it
  for (const auto& set : kTraining) {
    const auto rows = load(set);
    ASSERT_FALSE(rows.empty()) << set;
    for (const auto& r : rows) {
      train_specs.emplace(r.problem.to_spec(), set);
      Problem shape = r.problem;
      shape.n = 1;
      train_shapes.emplace(shape.to_spec(), set);
    }
  }
  for (const auto& set : kHoldout) {
    const auto rows = load(set);
    ASSERT_FALSE(rows.empty()) << set;
    for (const auto& r : rows) {
      const std::string spec = r.problem.to_spec();
      auto it = train_specs.find(spec);
      EXPECT_TRUE(it == train_specs.end()) << set << ":" << r.line << " " << spec << " is in " << it->second;
      if (set == "validation_holdout") continue;  // split by model; its batch sizes are torchvision's
      Problem shape = r.problem;
      shape.n = 1;
      auto sh = train_shapes.find(shape.to_spec());
      EXPECT_TRUE(sh == train_shapes.end()) << set << ":" << r.line << " layer shape of " << spec << " is in "
                                            << sh->second;
    }
  }
}

// The odd-shape sets: their sizes, and each odd feature the issue asks for
// present in both (dilation 2-4, asymmetric pads, 1xN/Nx1, long 1D, 3D,
// depth multipliers 2-6 with C/G = 1, tiny channels, N = 1 and N up to 256).
TEST(ProblemSets, OddSetsCoverTheOddShapes) {
  ProblemsDirGuard env(kProblems);
  for (const auto& [set, size] : {std::pair<std::string, size_t>{"train_odd", 396}, {"holdout_odd", 150}}) {
    const auto rows = load(set);
    EXPECT_EQ(rows.size(), size) << set;
    std::map<std::string, size_t> n;
    for (const auto& r : rows) {
      const Problem& p = r.problem;
      EXPECT_EQ(r.source.rfind("odd ", 0), 0u) << set << ":" << r.line;
      EXPECT_GE(p.flops(), 1e5) << set << ":" << r.line;
      EXPECT_LE(p.flops(), 1e11) << set << ":" << r.line;
      EXPECT_LE(p.n, 256) << set << ":" << r.line;
      bool dil = false, asym = false, rect = false;
      for (int i = p.first_slot(); i < 3; ++i) {
        dil |= p.dilation[i] >= 2 && p.dilation[i] <= 4;
        asym |= p.pad_lo[i] != p.pad_hi[i];
      }
      if (p.ndim == 2) rect = (p.filter[1] == 1) != (p.filter[2] == 1);
      n["dilated"] += dil;
      n["asymmetric pad"] += asym;
      n["1xN or Nx1"] += rect;
      n["1D >= 16k samples"] += p.ndim == 1 && p.in[2] >= 16000;
      n["3D"] += p.ndim == 3;
      n["depth multiplier 2-6"] += p.g == p.c && p.g > 1 && p.k / p.g >= 2 && p.k / p.g <= 6;
      n["C <= 8"] += p.c <= 8;
      n["N = 1"] += p.n == 1;
      n["N >= 128"] += p.n >= 128;
    }
    for (const auto& [what, count] : n) EXPECT_GE(count, rows.size() / 40) << set << ": too few rows: " << what;
  }
}

// holdout_nets: batch 16, every row names its models, and the models are
// the ones its header lists (none of torchvision's).
TEST(ProblemSets, HoldoutNetsAreBatch16OfTheListedModels) {
  ProblemsDirGuard env(kProblems);
  const auto rows = load("holdout_nets");
  ASSERT_GE(rows.size(), 100u);
  std::ifstream f(kProblems + "/holdout_nets.csv");
  std::set<std::string> listed;
  const std::string tag = "# held-out models: ";
  for (std::string line; std::getline(f, line);)
    if (line.rfind(tag, 0) == 0) {
      std::stringstream ss(line.substr(tag.size()));
      for (std::string m; ss >> m;) listed.insert(m);
    }
  ASSERT_GE(listed.size(), 5u);
  std::set<std::string> torchvision;
  for (const char* set : {"torchvision_2d", "torchvision_3d", "audio_1d"})
    for (const auto& r : load(set))
      for (const auto& m : split_models(r.source)) torchvision.insert(m);
  std::set<std::string> seen;
  std::set<int> ndims;
  for (const auto& r : rows) {
    EXPECT_EQ(r.problem.n, 16) << r.line;
    ndims.insert(r.problem.ndim);
    for (const auto& m : split_models(r.source)) {
      EXPECT_EQ(listed.count(m), 1u) << r.line << ": model " << m << " is not in the header";
      EXPECT_EQ(torchvision.count(m), 0u) << m << " is a training model";
      seen.insert(m);
    }
  }
  EXPECT_EQ(seen, listed);
  EXPECT_EQ(ndims, (std::set<int>{1, 2, 3}));
}

}  // namespace
}  // namespace gconv
