#include "gpu_harness.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/cuda_check.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "kernels/naive/naive.hpp"

namespace gconv::gputest {

std::vector<std::string> odd_problem_specs() {
  return {
      "n2c32k64_h14w14_y3x3_p1",                // dense
      "n2c3k16_h17w17_y7x7_s2_p3",              // C=3 stem
      "n2c16k1_h9w9_y3x3_p1",                   // K=1
      "n1c24k40_h13w11_y3x3_p1",                // prime sizes, N=1
      "n2c16k16_h19w19_y3x3_s3_p1",             // stride 3
      "n2c32k32_h15w15_y3x3_p1:3,2:0_dil2",     // dilation 2, asymmetric padding
      "n2c32k48_h12w12_y1x7_p0,3",              // 1x7
      "n2c32k48_h12w12_y7x1_p3,0",              // 7x1
      "n2c24k40_h11w11_y3x3_s2_p1",             // stride 2, odd channels
      "n2c32k64g2_h10w10_y3x3_p1",              // G=2
      "n2c64k64g64_h15w15_y3x3_s2_p1",          // depthwise stride 2
      "n2c40k40g40_h9w9_y5x5_p2",               // depthwise 5x5, C not a multiple of 16
      "n2c128k128g32_h8w8_y3x3_p1",             // ResNeXt-like, C/G=4
      "n2c64k64g8_h7w7_y3x3_s2_p1",             // grouped C/G=8, stride 2
      "n2c16k16g8_h11w13_y3x3_p1_dil2",         // C/G=2, dilation 2 (direct's grouped entries)
      "n1c32k32g4_d4h7w9_z3y3x3_s1,2,2_p1",     // 3D grouped C/G=8, H/W stride 2
      "n2c24k24g6_w41_x5_s2_p2",                // 1D grouped C/G=4
      "n2c16k16g4_h13w14_y3x3_s3_p1",           // C/G=4, stride 3: bwd_data's grouped entries step aside
      "n1c64k128_h7w7",                         // pointwise N=1
      // pointwise: TMA producers load x / dy as a flat matrix (wgmma/tma.hpp flat_ok); a grouped one
      // with row tails, 3D and 1D
      "n3c128k192g2_h9w11", "n2c64k128_d3h5w7_z1", "n3c64k64_w100",
      // pointwise channels off multiples of 64: TMA K tails past C (fwd) or K (bwd_data) read zeros,
      // bwd_weight's last block spans the next group's channels (C/G = 40)
      "n3c40k72_h9w11", "n2c200k136_h14w14", "n2c80k48g2_h7w9", "n2c24k40_d3h5w7_z1", "n3c72k40_w100",
      // strided pointwise: bwd_data's TMA phase 0 reads dy flat, the other phases are zeros
      "n2c64k128_h9w11_s2", "n3c72k40_h7w8_s3", "n2c64k64_d5h6w7_z1_s2",
      // strided bwd_data through TMA: one dy im2col map for every stride phase (wgmma/tma.hpp
      // bwd_data_corners); 3D with 8 phases, stride 3 with asymmetric padding and dilation, a phase
      // without taps (zeros)
      "n2c48k64_h10w12_y3x3_s2_p1", "n1c64k128_d4h6w6_z3y3x3_s2_p1", "n2c64k64_h12w15_y3x3_s3_p1:2,0:1_dil2",
      "n2c64k64_h8w8_y1x3_s2_p0,1",
      "n3c80k80g5_h9w13_y3x3_s2_p1:2,0:1_dil2", // C/G = 16, C off 64 (tinyc bwd_weight's last slab partial)
      "n4c64k64_h28w28_y3x3_p1",                // bigger: bwd_weight split-K
      "n1c16k32_d5h9w9_z3y3x3_p1",              // 3D
      "n2c16k16_d6h7w7_z3y3x3_s2_p1",           // 3D stride 2
      "n1c32k32g32_d5h8w8_z3y3x3_p1",           // 3D depthwise
      "n2c64k64_w50_x5_s2_p2",                  // 1D
      "n2c48k48g48_w33_x7_p3",                  // 1D depthwise (conformer-like)
      "n2c1k8_w37_x11_s3_p4:1_dil2",            // 1D, C=1, odd everything
      "n2c128k264g2_h9w9_y3x3_p1",              // K/G = 132: groups of y off 16-byte boundaries
      "n2c264k128g2_h9w9_y3x3_p1",              // C/G = 132: groups of dx off 16-byte boundaries
      // outputs of a number of elements off 4 (fwd y: 26, bwd_data dx: 26): parallel split-K's slices
      // then start off 16 bytes (the one-launch sum reads them element by element)
      "n1c208k26_h1w1_y1x1", "n1c26k208_h1w1_y1x1",
  };
}

std::vector<Problem> odd_problems(Direction d, DType t) {
  std::vector<Problem> out;
  for (const std::string& s : odd_problem_specs()) {
    auto p = Problem::parse_spec(s);
    if (!p.ok()) throw std::runtime_error("bad test spec " + s + ": " + p.status().to_string());
    p->direction = d;
    p->dtype = t;
    Status v = p->validate();
    if (!v.ok()) throw std::runtime_error("invalid test problem " + s + ": " + v.to_string());
    out.push_back(*p);
  }
  return out;
}

DeviceBuffer::DeviceBuffer(size_t n) : bytes(n) {
  if (cudaMalloc(&ptr, n ? n : 1) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr) cudaFree(ptr);
}

int sample_limit() {
  const char* v = std::getenv("GCONV_GPU_TEST_SAMPLE");
  return v ? std::atoi(v) : 0;
}

int compile_jobs() {
  const char* v = std::getenv("GCONV_GPU_TEST_JOBS");
  return v ? std::atoi(v) : int(std::thread::hardware_concurrency());
}

Checker::Checker() {
  if (cudaStreamCreate(&stream_) != cudaSuccess) throw std::runtime_error("cudaStreamCreate failed");
}
Checker::~Checker() {
  if (stream_) cudaStreamDestroy(stream_);
}

void Checker::ensure(DeviceBuffer& buf, size_t bytes) {
  if (buf.bytes >= bytes && buf.ptr) return;
  if (buf.ptr) cudaFree(buf.ptr);
  buf.ptr = nullptr;
  buf.bytes = 0;
  if (cudaMalloc(&buf.ptr, bytes ? bytes : 1) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  buf.bytes = bytes;
}

Status Checker::upload_inputs(const Problem& p, uint64_t seed, std::vector<unsigned char>* a,
                              std::vector<unsigned char>* b) {
  const ReferenceOperands ops = reference_operands(p);
  const int es = dtype_bytes(p.dtype);
  a->assign(size_t(ops.a) * es, 0);
  b->assign(size_t(ops.b) * es, 0);
  fill_random(p.dtype, a->data(), ops.a, seed * 2 + 1);
  fill_random(p.dtype, b->data(), ops.b, seed * 2 + 2);
  ensure(a_, a->size());
  ensure(b_, b->size());
  ensure(out_, size_t(ops.out) * es);
  ensure(ref_, size_t(ops.out) * es);
  GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(a_.ptr, a->data(), a->size(), cudaMemcpyHostToDevice, stream_));
  GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(b_.ptr, b->data(), b->size(), cudaMemcpyHostToDevice, stream_));
  return Status::Ok();
}

Status Checker::run_naive(const Problem& p, void* out) {
  const KernelTraits nt = naive_traits(p);
  auto inst = load_instance(nt, naive_family(), naive_kernel_name(nt));
  if (!inst.ok()) return inst.status();
  const size_t out_bytes = size_t(reference_operands(p).out) * dtype_bytes(p.dtype);
  GCONV_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out, kPoisonByte, out_bytes, stream_));
  ConvArgs args{a_.ptr, b_.ptr, out, nullptr, 0};
  return launch_instance(**inst, p, args, stream_);
}

RunCheck Checker::run(const Instance& inst, const Problem& p, uint64_t seed) {
  RunCheck rc;
  std::vector<unsigned char> a, b;
  if (!(rc.status = upload_inputs(p, seed, &a, &b)).ok()) return rc;
  if (!(rc.status = run_naive(p, ref_.ptr)).ok()) return rc;
  const int64_t n_out = reference_operands(p).out;
  const size_t out_bytes = size_t(n_out) * dtype_bytes(p.dtype);
  const size_t ws = inst.family->workspace_bytes(inst.traits, p);
  ensure(ws_, ws);
  // Poison the workspace too: a kernel must not rely on zeros it did not write.
  if (ws) cudaMemsetAsync(ws_.ptr, kPoisonByte, ws, stream_);
  if (!(rc.status = cuda_status(cudaMemsetAsync(out_.ptr, kPoisonByte, out_bytes, stream_), "poison")).ok()) return rc;
  ConvArgs args{a_.ptr, b_.ptr, out_.ptr, ws ? ws_.ptr : nullptr, ws};
  if (!(rc.status = launch_instance(inst, p, args, stream_)).ok()) return rc;
  if (!(rc.status = cuda_status(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(kernel)")).ok()) return rc;
  std::vector<unsigned char> out(out_bytes), ref(out_bytes);
  if (!(rc.status = cuda_status(cudaMemcpy(out.data(), out_.ptr, out_bytes, cudaMemcpyDeviceToHost), "D2H out")).ok())
    return rc;
  if (!(rc.status = cuda_status(cudaMemcpy(ref.data(), ref_.ptr, out_bytes, cudaMemcpyDeviceToHost), "D2H ref")).ok())
    return rc;
  rc.compare = compare_outputs(p.dtype, out.data(), ref.data(), n_out, tolerance_for(p));
  return rc;
}

RunCheck Checker::naive_matches_cpu(const Problem& p, uint64_t seed) {
  RunCheck rc;
  std::vector<unsigned char> a, b;
  if (!(rc.status = upload_inputs(p, seed, &a, &b)).ok()) return rc;
  if (!(rc.status = run_naive(p, out_.ptr)).ok()) return rc;
  if (!(rc.status = cuda_status(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(naive)")).ok()) return rc;
  const int64_t n_out = reference_operands(p).out;
  const size_t out_bytes = size_t(n_out) * dtype_bytes(p.dtype);
  std::vector<unsigned char> out(out_bytes), ref(out_bytes);
  if (!(rc.status = cuda_status(cudaMemcpy(out.data(), out_.ptr, out_bytes, cudaMemcpyDeviceToHost), "D2H")).ok())
    return rc;
  if (!(rc.status = reference_conv(p, a.data(), b.data(), ref.data())).ok()) return rc;
  rc.compare = compare_outputs(p.dtype, out.data(), ref.data(), n_out, tolerance_for(p));
  return rc;
}

}  // namespace gconv::gputest
