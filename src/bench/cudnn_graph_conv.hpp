// The cuDNN backend descriptors of one convolution (internal to the graph
// provider, cudnn_graph.hpp): RAII for every descriptor, each cuDNN status
// turned into a Status naming the descriptor, attribute or step.
//
// Use: create_handle -> build -> find_candidates -> finalize (per config) ->
// execute (per launch). Not thread-safe; one object per problem.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/cudnn_graph.hpp"
#include "bench/cudnn_loader.hpp"

namespace gconv::bench {

// One backend descriptor, destroyed with its owner.
class BackendDesc {
 public:
  BackendDesc() = default;
  BackendDesc(const CudnnApi* api, cudnnBackendDescriptor_t d) : api_(api), d_(d) {}
  ~BackendDesc() { reset(); }
  BackendDesc(BackendDesc&& o) noexcept : api_(o.api_), d_(o.d_) { o.d_ = nullptr; }
  BackendDesc& operator=(BackendDesc&& o) noexcept {
    if (this != &o) {
      reset();
      api_ = o.api_;
      d_ = o.d_;
      o.d_ = nullptr;
    }
    return *this;
  }
  BackendDesc(const BackendDesc&) = delete;
  BackendDesc& operator=(const BackendDesc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  explicit operator bool() const { return d_ != nullptr; }
  void reset() {
    if (d_) api_->cudnnBackendDestroyDescriptor(d_);
    d_ = nullptr;
  }

 private:
  const CudnnApi* api_ = nullptr;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// An engine config from the heuristics and, once finalized, its plan.
struct GraphCandidate {
  BackendDesc cfg;
  GraphEngineInfo info;
  std::string name;     // graph_engine_name(info)
  const char* mode = "";  // "A" or "FALLBACK": the heuristic list it came from
  bool tried = false;   // finalize attempted
  BackendDesc plan;     // set when finalize succeeded
  Status plan_status;   // finalize's outcome
  int64_t workspace = 0;
};

// The configs to try, and what happened to the rest.
struct GraphCandidates {
  std::vector<GraphCandidate> list;  // mode A's, then FALLBACK's; deduped, filtered
  size_t returned = 0;               // configs the heuristics returned in all
  size_t duplicates = 0, excluded = 0;
  std::string errors;                // heuristic modes that failed, "; "-joined
};

class GraphConv {
 public:
  GraphConv(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs);
  GraphConv(const GraphConv&) = delete;
  GraphConv& operator=(const GraphConv&) = delete;

  // The handle alone: its failure (no device, no driver) is fatal to a sweep.
  Status create_handle();
  // Tensors, convolution, operation (build_operation) and operation graph.
  Status build();
  // Tensors, convolution and operation alone: host-side, no handle or device
  // needed (cuDNN checks the shapes here, e.g. y's dims against x, w, pads).
  Status build_operation();
  // Heuristics mode A then FALLBACK into candidates(). not_supported when
  // both fail (message: both errors) or no usable config remains.
  Status find_candidates();
  GraphCandidates& candidates() { return cands_; }
  // Finalizes c's plan once (later calls return the first outcome) and reads
  // its workspace size.
  Status finalize(GraphCandidate& c);
  // Enqueues one convolution with c's finalized plan on `stream`.
  Status execute(const GraphCandidate& c, void* workspace, cudaStream_t stream);

 private:
  Result<BackendDesc> make(cudnnBackendDescriptorType_t type, const char* what);
  Status set(const BackendDesc& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t n,
             const void* v, const char* what);
  Status finalize_desc(const BackendDesc& d, const char* what);
  Result<BackendDesc> tensor(int64_t uid, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                             const void* ptr, const char* what);
  Status heuristic(cudnnBackendHeurMode_t mode, const char* mode_name, GraphCandidates* out,
                   std::vector<GraphEngineInfo>* infos);
  GraphEngineInfo describe(cudnnBackendDescriptor_t cfg);

  struct Handle {
    const CudnnApi* api = nullptr;
    cudnnHandle_t h = nullptr;
    ~Handle() {
      if (h) api->cudnnDestroy(h);
    }
  };

  const CudnnApi& api_;
  const Problem& p_;
  Handle handle_;  // declared first: destroyed after every descriptor that refers to it
  BackendDesc x_, w_, y_, conv_, op_, graph_;
  GraphCandidates cands_;  // their plans refer to the handle too
  BackendDesc varpack_;    // built for varpack_ws_
  void* varpack_ws_ = nullptr;
  // x, w, y data pointers (by direction, see the .cpp)
  void* ptr_x_ = nullptr;
  void* ptr_w_ = nullptr;
  void* ptr_y_ = nullptr;
};

}  // namespace gconv::bench
