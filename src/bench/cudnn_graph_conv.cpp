// Backend descriptors of one convolution (cudnn_graph_conv.hpp). Attribute
// sequence, each descriptor created, set and finalized in this order:
//   TENSOR x/w/y: DATA_TYPE, DIMENSIONS, STRIDES, UNIQUE_ID, BYTE_ALIGNMENT
//   CONVOLUTION: COMP_TYPE float, CONV_MODE cross-correlation, SPATIAL_DIMS,
//     FILTER_STRIDES, DILATIONS, PRE_PADDINGS, POST_PADDINGS
//   OPERATION_CONVOLUTION_{FORWARD,BACKWARD_DATA,BACKWARD_FILTER}: the three
//     tensors, CONV_DESC, ALPHA 1.0f, BETA 0.0f
//   OPERATIONGRAPH: OPS, HANDLE
//   ENGINEHEUR (per mode): OPERATION_GRAPH, MODE; RESULTS read into
//     ENGINECFG descriptors (count first, then the configs)
//   EXECUTION_PLAN (per config): HANDLE, ENGINE_CONFIG; WORKSPACE_SIZE read
//   VARIANT_PACK (per workspace pointer): UNIQUE_IDS, DATA_POINTERS, WORKSPACE
// then cudnnBackendExecute(handle, plan, variant pack) on the handle's stream.
#include "bench/cudnn_graph_conv.hpp"

#include <algorithm>

namespace gconv::bench {

namespace {

constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;

cudnnDataType_t graph_data_type(DType t) {
  switch (t) {
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::fp16: return CUDNN_DATA_HALF;
    case DType::fp32: return CUDNN_DATA_FLOAT;
  }
  return CUDNN_DATA_FLOAT;
}

}  // namespace

// Names the attribute in the error message: "x CUDNN_ATTR_TENSOR_DIMENSIONS".
#define GCONV_GRAPH_SET(desc, attr, type, n, v, what) \
  GCONV_RETURN_IF_ERROR(set((desc), (attr), (type), (n), (v), what " " #attr))

GraphConv::GraphConv(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs)
    : api_(api), p_(p) {
  handle_.api = &api;
  // The tensors' roles by direction (a, b, out as in DeviceBuffers).
  void* a = const_cast<void*>(bufs.a);
  void* b = const_cast<void*>(bufs.b);
  switch (p.direction) {
    case Direction::fwd: ptr_x_ = a, ptr_w_ = b, ptr_y_ = bufs.out; break;        // x, w -> y
    case Direction::bwd_data: ptr_y_ = a, ptr_w_ = b, ptr_x_ = bufs.out; break;   // dy, w -> dx
    case Direction::bwd_weight: ptr_x_ = a, ptr_y_ = b, ptr_w_ = bufs.out; break; // x, dy -> dw
  }
}

Status GraphConv::create_handle() {
  const cudnnStatus_t s = api_.cudnnCreate(&handle_.h);
  if (s == CUDNN_STATUS_SUCCESS) return Status::Ok();
  handle_.h = nullptr;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    return Status(StatusCode::no_device, cudnn_status(api_, s, "cudnnCreate").message() + "; no CUDA device");
  }
  return cudnn_status(api_, s, "cudnnCreate");
}

Result<BackendDesc> GraphConv::make(cudnnBackendDescriptorType_t type, const char* what) {
  cudnnBackendDescriptor_t d = nullptr;
  const cudnnStatus_t s = api_.cudnnBackendCreateDescriptor(type, &d);
  if (s != CUDNN_STATUS_SUCCESS)
    return cudnn_status(api_, s, ("cudnnBackendCreateDescriptor(" + std::string(what) + ")").c_str());
  return BackendDesc(&api_, d);
}

Status GraphConv::set(const BackendDesc& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                      int64_t n, const void* v, const char* what) {
  return cudnn_status(api_, api_.cudnnBackendSetAttribute(d.get(), name, type, n, v),
                      ("cudnnBackendSetAttribute(" + std::string(what) + ")").c_str());
}

Status GraphConv::finalize_desc(const BackendDesc& d, const char* what) {
  return cudnn_status(api_, api_.cudnnBackendFinalize(d.get()),
                      ("cudnnBackendFinalize(" + std::string(what) + ")").c_str());
}

Result<BackendDesc> GraphConv::tensor(int64_t uid, const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& strides, const void* ptr, const char* what) {
  auto d = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR, what);
  if (!d.ok()) return d.status();
  const cudnnDataType_t dt = graph_data_type(p_.dtype);
  const int64_t nd = int64_t(dims.size());
  const int64_t align = graph_byte_alignment(ptr);
  const std::string w = std::string("tensor ") + what;
  GCONV_RETURN_IF_ERROR(set(*d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, (w + " DATA_TYPE").c_str()));
  GCONV_RETURN_IF_ERROR(set(*d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims.data(), (w + " DIMENSIONS").c_str()));
  GCONV_RETURN_IF_ERROR(set(*d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides.data(), (w + " STRIDES").c_str()));
  GCONV_RETURN_IF_ERROR(set(*d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, (w + " UNIQUE_ID").c_str()));
  GCONV_RETURN_IF_ERROR(
      set(*d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align, (w + " BYTE_ALIGNMENT").c_str()));
  GCONV_RETURN_IF_ERROR(finalize_desc(*d, w.c_str()));
  return d;
}

Status GraphConv::build() {
  if (!handle_.h) return internal_error("GraphConv::build before create_handle");
  GCONV_RETURN_IF_ERROR(build_operation());
  auto graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "OPERATIONGRAPH");
  if (!graph.ok()) return graph.status();
  graph_ = std::move(*graph);
  cudnnBackendDescriptor_t od = op_.get();
  cudnnHandle_t h = handle_.h;
  GCONV_GRAPH_SET(graph_, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &od, "graph");
  // Deprecated in recent cuDNN 9 (which accepts it) and required by older 9.x.
  GCONV_GRAPH_SET(graph_, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, "graph");
  return finalize_desc(graph_, "OPERATIONGRAPH");
}

Status GraphConv::build_operation() {
  const GraphShape s = cudnn_graph_shape(p_);
  auto x = tensor(kUidX, s.x_dims, s.x_strides, ptr_x_, "x");
  if (!x.ok()) return x.status();
  x_ = std::move(*x);
  auto w = tensor(kUidW, s.w_dims, s.w_strides, ptr_w_, "w");
  if (!w.ok()) return w.status();
  w_ = std::move(*w);
  auto y = tensor(kUidY, s.y_dims, s.y_strides, ptr_y_, "y");
  if (!y.ok()) return y.status();
  y_ = std::move(*y);

  auto conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "CONVOLUTION");
  if (!conv.ok()) return conv.status();
  conv_ = std::move(*conv);
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t sd = s.spatial;
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp, "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd, "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, sd, s.stride.data(), "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, sd, s.dilation.data(), "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, sd, s.pre_pad.data(), "conv");
  GCONV_GRAPH_SET(conv_, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, sd, s.post_pad.data(), "conv");
  GCONV_RETURN_IF_ERROR(finalize_desc(conv_, "CONVOLUTION"));

  // alpha/beta: float for float, half and bfloat16 data (double only for double).
  const float alpha = 1.0f, beta = 0.0f;
  cudnnBackendDescriptor_t xd = x_.get(), wd = w_.get(), yd = y_.get(), cd = conv_.get();
  const auto D = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  if (p_.direction == Direction::fwd) {
    auto op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, "OPERATION_CONVOLUTION_FORWARD");
    if (!op.ok()) return op.status();
    op_ = std::move(*op);
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, D, 1, &xd, "fwd");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, D, 1, &wd, "fwd");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, D, 1, &yd, "fwd");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, D, 1, &cd, "fwd");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "fwd");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "fwd");
  } else if (p_.direction == Direction::bwd_data) {
    auto op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, "OPERATION_CONVOLUTION_BACKWARD_DATA");
    if (!op.ok()) return op.status();
    op_ = std::move(*op);
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, D, 1, &xd, "bwd_data");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, D, 1, &wd, "bwd_data");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, D, 1, &yd, "bwd_data");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, D, 1, &cd, "bwd_data");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "bwd_data");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "bwd_data");
  } else {
    auto op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                   "OPERATION_CONVOLUTION_BACKWARD_FILTER");
    if (!op.ok()) return op.status();
    op_ = std::move(*op);
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, D, 1, &xd, "bwd_filter");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, D, 1, &wd, "bwd_filter");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, D, 1, &yd, "bwd_filter");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, D, 1, &cd, "bwd_filter");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha, "bwd_filter");
    GCONV_GRAPH_SET(op_, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_FLOAT, 1, &beta, "bwd_filter");
  }
  return finalize_desc(op_, "OPERATION_CONVOLUTION");
}

GraphEngineInfo GraphConv::describe(cudnnBackendDescriptor_t cfg) {
  // Best effort: the description names and dedupes a config; a part that
  // cannot be read leaves it unnamed (eng-1) and never merged, not dropped.
  GraphEngineInfo info;
  info.knobs_known = false;
  auto engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "ENGINE");
  if (!engine.ok()) return info;
  cudnnBackendDescriptor_t e = engine->get();
  int64_t n = 0;
  if (api_.cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) !=
      CUDNN_STATUS_SUCCESS)
    return info;
  int64_t index = -1;
  if (api_.cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index) !=
      CUDNN_STATUS_SUCCESS)
    return info;
  info.engine = index;

  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  n = 0;
  if (api_.cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                    CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) == CUDNN_STATUS_SUCCESS)
    for (int64_t i = 0; i < std::min<int64_t>(n, CUDNN_NUMERICAL_NOTE_TYPE_COUNT); ++i)
      info.numerical_notes.push_back(int(notes[i]));
  cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  n = 0;
  if (api_.cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                    CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &n, behavior) == CUDNN_STATUS_SUCCESS)
    for (int64_t i = 0; i < std::min<int64_t>(n, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT); ++i)
      info.behavior_notes.push_back(int(behavior[i]));

  // Knob choices: descriptors created first, then filled by cuDNN.
  constexpr int64_t kMaxKnobs = CUDNN_KNOB_TYPE_COUNTS;
  std::vector<BackendDesc> choices;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < kMaxKnobs; ++i) {
    auto c = make(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "KNOB_CHOICE");
    if (!c.ok()) return info;
    raw.push_back(c->get());
    choices.push_back(std::move(*c));
  }
  n = 0;
  if (api_.cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxKnobs,
                                    &n, raw.data()) != CUDNN_STATUS_SUCCESS)
    return info;
  for (int64_t i = 0; i < std::min(n, kMaxKnobs); ++i) {
    cudnnBackendKnobType_t type{};
    int64_t value = 0, m = 0;
    if (api_.cudnnBackendGetAttribute(raw[size_t(i)], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &m,
                                      &type) != CUDNN_STATUS_SUCCESS ||
        api_.cudnnBackendGetAttribute(raw[size_t(i)], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &m,
                                      &value) != CUDNN_STATUS_SUCCESS) {
      info.knobs.clear();
      return info;
    }
    info.knobs.emplace_back(int(type), value);
  }
  std::sort(info.knobs.begin(), info.knobs.end());
  info.knobs_known = true;
  return info;
}

Status GraphConv::heuristic(cudnnBackendHeurMode_t mode, const char* mode_name, GraphCandidates* out,
                            std::vector<GraphEngineInfo>* infos) {
  auto heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "ENGINEHEUR");
  if (!heur.ok()) return heur.status();
  cudnnBackendDescriptor_t g = graph_.get();
  GCONV_GRAPH_SET(*heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g, "heur");
  GCONV_GRAPH_SET(*heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "heur");
  GCONV_RETURN_IF_ERROR(finalize_desc(*heur, (std::string("ENGINEHEUR mode ") + mode_name).c_str()));
  int64_t count = 0;
  GCONV_RETURN_IF_ERROR(cudnn_status(api_,
                                     api_.cudnnBackendGetAttribute(heur->get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
                                     "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS count)"));
  if (count <= 0) return Status::Ok();
  std::vector<BackendDesc> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    auto c = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "ENGINECFG");
    if (!c.ok()) return c.status();
    raw.push_back(c->get());
    cfgs.push_back(std::move(*c));
  }
  int64_t got = 0;
  GCONV_RETURN_IF_ERROR(cudnn_status(api_,
                                     api_.cudnnBackendGetAttribute(heur->get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                                                   raw.data()),
                                     "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS)"));
  got = std::clamp<int64_t>(got, 0, count);
  for (int64_t i = 0; i < got; ++i) {
    GraphCandidate c;
    c.cfg = std::move(cfgs[size_t(i)]);
    c.info = describe(c.cfg.get());
    c.name = graph_engine_name(c.info);
    c.mode = mode_name;
    infos->push_back(c.info);
    out->list.push_back(std::move(c));
  }
  return Status::Ok();
}

Status GraphConv::find_candidates() {
  if (!graph_) return internal_error("GraphConv::find_candidates before build");
  GraphCandidates all;
  std::vector<GraphEngineInfo> infos;
  // Mode A is cuDNN's ranked list; FALLBACK adds engines A leaves out (and is
  // the only list where A has nothing).
  const Status a = heuristic(CUDNN_HEUR_MODE_A, "A", &all, &infos);
  const Status f = heuristic(CUDNN_HEUR_MODE_FALLBACK, "FALLBACK", &all, &infos);
  if (!a.ok()) all.errors = "mode A: " + a.message();
  if (!f.ok()) all.errors += (all.errors.empty() ? "" : "; ") + std::string("mode FALLBACK: ") + f.message();
  if (!a.ok() && !f.ok()) return Status(a.code(), "cuDNN graph heuristics failed: " + all.errors);
  cands_ = GraphCandidates{};
  cands_.returned = all.list.size();
  cands_.errors = all.errors;
  const std::vector<size_t> keep = dedupe_graph_configs(infos);
  cands_.duplicates = all.list.size() - keep.size();
  for (size_t i : keep) {
    if (!graph_engine_excluded(all.list[i].info).empty()) {
      cands_.excluded++;
      continue;
    }
    cands_.list.push_back(std::move(all.list[i]));
  }
  if (cands_.list.empty())
    return not_supported("cuDNN graph heuristics: no usable engine config (" + std::to_string(cands_.returned) +
                         " returned, " + std::to_string(cands_.excluded) + " excluded by numerical notes)" +
                         (cands_.errors.empty() ? "" : "; " + cands_.errors));
  return Status::Ok();
}

Status GraphConv::finalize(GraphCandidate& c) {
  if (c.tried) return c.plan_status;
  c.tried = true;
  c.plan_status = [&]() -> Status {
    auto plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "EXECUTION_PLAN");
    if (!plan.ok()) return plan.status();
    cudnnHandle_t h = handle_.h;
    cudnnBackendDescriptor_t cfg = c.cfg.get();
    GCONV_GRAPH_SET(*plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, "plan");
    GCONV_GRAPH_SET(*plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg, "plan");
    GCONV_RETURN_IF_ERROR(finalize_desc(*plan, ("EXECUTION_PLAN " + c.name).c_str()));
    int64_t ws = 0, n = 0;
    GCONV_RETURN_IF_ERROR(cudnn_status(api_,
                                       api_.cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                                     CUDNN_TYPE_INT64, 1, &n, &ws),
                                       "cudnnBackendGetAttribute(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)"));
    if (ws < 0) return internal_error("cuDNN plan " + c.name + " reports workspace " + std::to_string(ws));
    c.workspace = ws;
    c.plan = std::move(*plan);
    return Status::Ok();
  }();
  return c.plan_status;
}

Status GraphConv::execute(const GraphCandidate& c, void* workspace, cudaStream_t stream) {
  if (!c.plan) return internal_error("GraphConv::execute: plan " + c.name + " is not finalized");
  GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetStream, handle_.h, stream);
  if (!varpack_ || varpack_ws_ != workspace) {
    varpack_.reset();
    auto vp = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "VARIANT_PACK");
    if (!vp.ok()) return vp.status();
    const int64_t uids[3] = {kUidX, kUidW, kUidY};
    void* ptrs[3] = {ptr_x_, ptr_w_, ptr_y_};
    GCONV_GRAPH_SET(*vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids, "varpack");
    GCONV_GRAPH_SET(*vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs, "varpack");
    GCONV_GRAPH_SET(*vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace, "varpack");
    GCONV_RETURN_IF_ERROR(finalize_desc(*vp, "VARIANT_PACK"));
    varpack_ = std::move(*vp);
    varpack_ws_ = workspace;
  }
  return cudnn_status(api_, api_.cudnnBackendExecute(handle_.h, c.plan.get(), varpack_.get()),
                      ("cudnnBackendExecute(" + c.name + ")").c_str());
}

#undef GCONV_GRAPH_SET

}  // namespace gconv::bench
