// XGBoost C API boundary: the only file that includes xgboost/c_api.h.
#include "heuristic/xgb.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#if defined(GCONV_HAVE_XGBOOST)
#include <dlfcn.h>
#include <xgboost/c_api.h>
#endif

namespace gconv::heuristic {

namespace {

[[maybe_unused]] Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status(StatusCode::not_found, "no model file " + path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error("cannot read " + path);
  return ss.str();
}

[[maybe_unused]] bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status validate_params(const TrainParams& p) {
  const auto fraction = [](double v) { return std::isfinite(v) && v > 0 && v <= 1; };
  const auto nonneg = [](double v) { return std::isfinite(v) && v >= 0; };
  if (p.rounds < 0 || p.rounds > 100000) return invalid_argument(fmt::format("rounds = {} is not in 0..100000", p.rounds));
  if (p.max_depth < 1 || p.max_depth > 64) return invalid_argument(fmt::format("max_depth = {} is not in 1..64", p.max_depth));
  if (!fraction(p.eta)) return invalid_argument(fmt::format("eta = {} is not in (0, 1]", p.eta));
  if (!fraction(p.subsample)) return invalid_argument(fmt::format("subsample = {} is not in (0, 1]", p.subsample));
  if (!fraction(p.colsample)) return invalid_argument(fmt::format("colsample = {} is not in (0, 1]", p.colsample));
  if (!nonneg(p.min_child_weight))
    return invalid_argument(fmt::format("min_child_weight = {} is not a number >= 0", p.min_child_weight));
  if (!nonneg(p.lambda)) return invalid_argument(fmt::format("lambda = {} is not a number >= 0", p.lambda));
  if (p.threads < 0) return invalid_argument(fmt::format("threads = {} is negative", p.threads));
  return Status::Ok();
}

#if defined(GCONV_HAVE_XGBOOST)

namespace {

// XGBoost is loaded on first use (dlopen), not linked: only training and
// evaluation against XGBoost need it, and a linked library is mapped (and
// partly made resident, ~3 MB) in every process that merely selects kernels.
// The XGBoost C functions gconv calls: one list for the struct and the loader.
#define GCONV_XGB_FUNCTIONS(X) \
  X(XGBGetLastError) \
  X(XGBoostVersion) \
  X(XGBoosterBoostedRounds) \
  X(XGBoosterCreate) \
  X(XGBoosterFree) \
  X(XGBoosterGetNumFeature) \
  X(XGBoosterLoadModelFromBuffer) \
  X(XGBoosterPredictFromDMatrix) \
  X(XGBoosterSaveModelToBuffer) \
  X(XGBoosterSetParam) \
  X(XGBoosterUpdateOneIter) \
  X(XGDMatrixCreateFromMat) \
  X(XGDMatrixFree) \
  X(XGDMatrixSetFloatInfo) \
  X(XGDMatrixSetUIntInfo)

struct XgbApi {
#define GCONV_XGB_FN(name) decltype(&::name) name = nullptr;
  GCONV_XGB_FUNCTIONS(GCONV_XGB_FN)
#undef GCONV_XGB_FN
  std::string error;  // "" when every function was found
};

XgbApi load_xgb() {
  XgbApi a;
  // The library found at build time, then its usual sonames.
  void* lib = nullptr;
  std::string tried;
  for (const char* name : {GCONV_XGBOOST_LIB, "libxgboost.so.0", "libxgboost.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  if (!lib) {
    a.error = "the XGBoost library could not be loaded (" + tried + ")";
    return a;
  }
#define GCONV_XGB_FN(name)                                                     \
  a.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));             \
  if (!a.name && a.error.empty()) a.error = "the XGBoost library has no " #name;
  GCONV_XGB_FUNCTIONS(GCONV_XGB_FN)
#undef GCONV_XGB_FN
  return a;  // the library stays loaded for the process
}

// Loaded once, thread-safe (a function-local static).
const XgbApi& xgb() {
  static const XgbApi api = load_xgb();
  return api;
}

// not_supported naming the cause when XGBoost is not usable here.
Status need_xgb() {
  if (xgb().error.empty()) return Status::Ok();
  return not_supported(xgb().error);
}

}  // namespace

namespace {

Status xgb_error(int rc, const char* call, StatusCode code = StatusCode::internal) {
  if (rc == 0) return Status::Ok();
  const char* why = xgb().XGBGetLastError();
  return {code, fmt::format("XGBoost {} failed: {}", call, why ? why : "(no message)")};
}

// Owns a DMatrixHandle.
struct DMatrix {
  DMatrixHandle h = nullptr;
  ~DMatrix() {
    if (h) xgb().XGDMatrixFree(h);
  }
};

Status make_dmatrix(const float* x, int rows, int cols, DMatrix* out) {
  const float missing = std::numeric_limits<float>::quiet_NaN();
  return xgb_error(xgb().XGDMatrixCreateFromMat(x, static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols),
                                          missing, &out->h),
                   "XGDMatrixCreateFromMat", StatusCode::invalid_argument);
}

Status check_data(const TrainData& d, const TrainParams& p) {
  if (d.rows <= 0 || d.cols <= 0) return invalid_argument(fmt::format("training data is {}x{}", d.rows, d.cols));
  const size_t n = static_cast<size_t>(d.rows);
  if (d.x.size() != n * static_cast<size_t>(d.cols))
    return invalid_argument(fmt::format("training x has {} values, want rows*cols = {}", d.x.size(),
                                        n * static_cast<size_t>(d.cols)));
  if (d.label.size() != n)
    return invalid_argument(fmt::format("training label has {} values, want rows = {}", d.label.size(), n));
  if (!d.group_sizes.empty()) {
    const size_t total = std::accumulate(d.group_sizes.begin(), d.group_sizes.end(), size_t{0});
    if (total != n) return invalid_argument(fmt::format("group_sizes sum to {}, want rows = {}", total, n));
  }
  if (!d.weight.empty()) {
    const bool rank = p.objective.rfind("rank:", 0) == 0;
    const size_t want = rank && !d.group_sizes.empty() ? d.group_sizes.size() : n;
    if (d.weight.size() != want)
      return invalid_argument(fmt::format("training weight has {} values, want {} (one per {})", d.weight.size(),
                                          want, want == n ? "row" : "group"));
  }
  return validate_params(p);
}

Status set_param(BoosterHandle h, const std::string& name, const std::string& value) {
  int rc = xgb().XGBoosterSetParam(h, name.c_str(), value.c_str());
  if (rc == 0) return Status::Ok();
  return xgb_error(rc, ("XGBoosterSetParam " + name + "=" + value).c_str(), StatusCode::invalid_argument);
}

Status set_params(BoosterHandle h, const TrainParams& p) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"objective", p.objective},
      {"max_depth", fmt::format("{}", p.max_depth)},
      {"eta", fmt::format("{}", p.eta)},
      {"subsample", fmt::format("{}", p.subsample)},
      {"colsample_bytree", fmt::format("{}", p.colsample)},
      {"min_child_weight", fmt::format("{}", p.min_child_weight)},
      {"lambda", fmt::format("{}", p.lambda)},
      {"tree_method", p.tree_method},
      {"seed", fmt::format("{}", p.seed)},
      {"verbosity", "1"},
  };
  if (p.threads > 0) kv.emplace_back("nthread", fmt::format("{}", p.threads));
  kv.insert(kv.end(), p.extra.begin(), p.extra.end());
  for (const auto& [k, v] : kv) GCONV_RETURN_IF_ERROR(set_param(h, k, v));
  return Status::Ok();
}

}  // namespace

Booster& Booster::operator=(Booster&& o) noexcept {
  if (this != &o) {
    if (handle_) xgb().XGBoosterFree(handle_);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

Booster::~Booster() {
  if (handle_) xgb().XGBoosterFree(handle_);
}

Result<Booster> Booster::train(const TrainData& data, const TrainParams& params, const Booster* warm_start) {
  GCONV_RETURN_IF_ERROR(need_xgb());
  GCONV_RETURN_IF_ERROR(check_data(data, params));
  if (warm_start) {
    if (warm_start->empty()) return invalid_argument("warm start from an empty Booster");
    if (warm_start->num_features() != data.cols)
      return invalid_argument(fmt::format("warm start model has {} features, training data {}",
                                          warm_start->num_features(), data.cols));
  }
  DMatrix dtrain;
  GCONV_RETURN_IF_ERROR(make_dmatrix(data.x.data(), data.rows, data.cols, &dtrain));
  GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGDMatrixSetFloatInfo(dtrain.h, "label", data.label.data(), data.label.size()),
                                  "XGDMatrixSetFloatInfo label", StatusCode::invalid_argument));
  if (!data.group_sizes.empty())
    GCONV_RETURN_IF_ERROR(xgb_error(
        xgb().XGDMatrixSetUIntInfo(dtrain.h, "group", data.group_sizes.data(), data.group_sizes.size()),
        "XGDMatrixSetUIntInfo group", StatusCode::invalid_argument));
  if (!data.weight.empty())
    GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGDMatrixSetFloatInfo(dtrain.h, "weight", data.weight.data(), data.weight.size()),
                                    "XGDMatrixSetFloatInfo weight", StatusCode::invalid_argument));

  BoosterHandle h = nullptr;
  GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterCreate(&dtrain.h, 1, &h), "XGBoosterCreate"));
  Booster b(h);  // owns h from here on
  int first_iter = 0;
  if (warm_start) {
    // A copy of the model through its UBJSON bytes: the caller's Booster stays as it is.
    Result<std::string> bytes = warm_start->save_ubjson();
    if (!bytes.ok()) return bytes.status();
    GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterLoadModelFromBuffer(h, bytes->data(), bytes->size()),
                                    "XGBoosterLoadModelFromBuffer (warm start)"));
    first_iter = warm_start->boosted_rounds();
  }
  GCONV_RETURN_IF_ERROR(set_params(h, params));
  for (int i = 0; i < params.rounds; ++i) {
    GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterUpdateOneIter(h, first_iter + i, dtrain.h),
                                    "XGBoosterUpdateOneIter", StatusCode::invalid_argument));
  }
  return b;
}

Result<Booster> Booster::load_buffer(const std::string& bytes) {
  GCONV_RETURN_IF_ERROR(need_xgb());
  if (bytes.empty()) return parse_error("empty XGBoost model");
  BoosterHandle h = nullptr;
  GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterCreate(nullptr, 0, &h), "XGBoosterCreate"));
  Booster b(h);
  GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterLoadModelFromBuffer(h, bytes.data(), bytes.size()),
                                  "XGBoosterLoadModelFromBuffer", StatusCode::parse_error));
  return b;
}

Result<Booster> Booster::load_file(const std::string& path) {
  Result<std::string> bytes = read_file(path);
  if (!bytes.ok()) return bytes.status();
  Result<Booster> b = load_buffer(*bytes);
  if (!b.ok()) return Status(b.status().code(), path + ": " + b.status().message());
  return b;
}

Result<std::string> Booster::save_buffer(const char* format) const {
  if (!handle_) return invalid_argument("empty Booster");
  const std::string config = fmt::format(R"({{"format": "{}"}})", format);
  bst_ulong len = 0;
  const char* out = nullptr;
  GCONV_RETURN_IF_ERROR(
      xgb_error(xgb().XGBoosterSaveModelToBuffer(handle_, config.c_str(), &len, &out), "XGBoosterSaveModelToBuffer"));
  return std::string(out, len);
}

Result<std::string> Booster::save_json() const { return save_buffer("json"); }
Result<std::string> Booster::save_ubjson() const { return save_buffer("ubj"); }

Status Booster::save_file(const std::string& path) const {
  const char* format = ends_with(path, ".json") ? "json" : ends_with(path, ".ubj") ? "ubj" : nullptr;
  if (!format) return invalid_argument("model file " + path + ": the name must end in .json or .ubj");
  Result<std::string> bytes = save_buffer(format);
  if (!bytes.ok()) return bytes.status();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error("cannot write " + tmp + ": " + std::strerror(errno));
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    out.flush();
    if (!out) return io_error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return io_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
  return Status::Ok();
}

Result<std::vector<float>> Booster::predict_type(const float* x, int rows, int cols, int type, size_t per_row) const {
  if (!handle_) return invalid_argument("empty Booster");
  if (rows < 0 || (rows > 0 && !x)) return invalid_argument("predict: no input rows");
  if (cols != num_features())
    return invalid_argument(fmt::format("predict: {} columns, the model has {} features", cols, num_features()));
  if (rows == 0) return std::vector<float>{};
  DMatrix d;
  GCONV_RETURN_IF_ERROR(make_dmatrix(x, rows, cols, &d));
  const std::string config = fmt::format(
      R"({{"type": {}, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false}})", type);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  GCONV_RETURN_IF_ERROR(xgb_error(xgb().XGBoosterPredictFromDMatrix(handle_, d.h, config.c_str(), &shape, &dim, &out),
                                  "XGBoosterPredictFromDMatrix"));
  size_t n = 1;
  for (bst_ulong i = 0; i < dim; ++i) n *= shape[i];
  const size_t want = static_cast<size_t>(rows) * per_row;
  if (n != want)
    return internal_error(fmt::format("XGBoost returned {} values for {} rows, want {} (multi-output model?)", n,
                                      rows, want));
  return std::vector<float>(out, out + n);
}

Result<std::vector<float>> Booster::predict(const float* x, int rows, int cols, bool output_margin) const {
  return predict_type(x, rows, cols, output_margin ? 1 : 0, 1);
}

Result<std::vector<float>> Booster::contributions(const float* x, int rows, int cols, bool approx) const {
  return predict_type(x, rows, cols, approx ? 3 : 2, static_cast<size_t>(cols) + 1);
}

int Booster::num_features() const {
  bst_ulong n = 0;
  if (!handle_ || xgb().XGBoosterGetNumFeature(handle_, &n) != 0) return 0;
  return static_cast<int>(n);
}

int Booster::boosted_rounds() const {
  int n = 0;
  if (!handle_ || xgb().XGBoosterBoostedRounds(handle_, &n) != 0) return 0;
  return n;
}

std::string Booster::xgboost_version() {
  if (!need_xgb().ok()) return "";
  int major = 0, minor = 0, patch = 0;
  xgb().XGBoostVersion(&major, &minor, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

#else  // !GCONV_HAVE_XGBOOST

namespace {
Status no_xgboost() { return not_supported("built without XGBoost"); }
}  // namespace

Booster& Booster::operator=(Booster&& o) noexcept {
  handle_ = std::exchange(o.handle_, nullptr);
  return *this;
}
Booster::~Booster() = default;
Result<Booster> Booster::train(const TrainData&, const TrainParams&, const Booster*) { return no_xgboost(); }
Result<Booster> Booster::load_buffer(const std::string&) { return no_xgboost(); }
Result<Booster> Booster::load_file(const std::string&) { return no_xgboost(); }
Result<std::string> Booster::save_buffer(const char*) const { return no_xgboost(); }
Result<std::string> Booster::save_json() const { return no_xgboost(); }
Result<std::string> Booster::save_ubjson() const { return no_xgboost(); }
Status Booster::save_file(const std::string&) const { return no_xgboost(); }
Result<std::vector<float>> Booster::predict_type(const float*, int, int, int, size_t) const { return no_xgboost(); }
Result<std::vector<float>> Booster::predict(const float*, int, int, bool) const { return no_xgboost(); }
Result<std::vector<float>> Booster::contributions(const float*, int, int, bool) const { return no_xgboost(); }
int Booster::num_features() const { return 0; }
int Booster::boosted_rounds() const { return 0; }
std::string Booster::xgboost_version() { return ""; }

#endif  // GCONV_HAVE_XGBOOST

}  // namespace gconv::heuristic
