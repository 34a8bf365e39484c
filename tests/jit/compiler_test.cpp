// NVRTC front end: real CUBINs from embedded headers, errors with logs,
// toolkit lookup, include resolution.
#include "jit/compiler.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <string>

#include "jit_test_util.hpp"

namespace gconv::jit {
namespace {

using testing::is_elf;
using testing::vector_add_source;

CompileOptions hopper() {
  CompileOptions o;
  o.arch = "sm_90a";
  return o;
}

// Environment stand-in: only the given variables are set.
EnvLookup fake_env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(JitCompiler, EmbeddedTestKernelCompilesToCudaElfForSm90a) {
  ASSERT_TRUE(embedded_kernel_sources().count("testing/vector_add.cuh"));
  auto cubin = compile(vector_add_source(), "vector_add.cu", hopper());
  ASSERT_TRUE(cubin.ok()) << cubin.status().to_string();
  EXPECT_TRUE(is_elf(cubin->image));
  // e_machine (offset 18, little-endian) is EM_CUDA = 190 for a CUBIN.
  ASSERT_GT(cubin->image.size(), 20u);
  int machine = static_cast<unsigned char>(cubin->image[18]) | (static_cast<unsigned char>(cubin->image[19]) << 8);
  EXPECT_EQ(machine, 190);
  EXPECT_EQ(cubin->arch, "sm_90a");
  EXPECT_GT(cubin->compile_ms, 0.0);
  // The entry point keeps its extern "C" name in the symbol table.
  std::string image(cubin->image.begin(), cubin->image.end());
  EXPECT_NE(image.find("gconv_test_vector_add"), std::string::npos);
}

TEST(JitCompiler, SyntaxErrorIsCompileErrorWithLog) {
  std::string src = vector_add_source() + "\n__global__ void broken( { int x = ; }\n";
  auto cubin = compile(src, "broken_kernel.cu", hopper());
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), StatusCode::compile_error);
  // The message carries NVRTC's log: the program name and an error line.
  EXPECT_NE(cubin.status().message().find("broken_kernel.cu"), std::string::npos);
  EXPECT_NE(cubin.status().message().find("error"), std::string::npos) << cubin.status().message();
}

TEST(JitCompiler, MissingHeaderIsCompileErrorNamingIt) {
  auto cubin = compile("#include \"nope/missing.cuh\"\n", "missing.cu", hopper());
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), StatusCode::compile_error);
  EXPECT_NE(cubin.status().message().find("nope/missing.cuh"), std::string::npos);
}

TEST(JitCompiler, RealArchesOnly) {
  EXPECT_TRUE(is_real_arch("sm_90a"));
  EXPECT_TRUE(is_real_arch("sm_90"));
  EXPECT_TRUE(is_real_arch("sm_100f"));
  EXPECT_FALSE(is_real_arch("compute_90a"));
  EXPECT_FALSE(is_real_arch("sm_9"));
  EXPECT_FALSE(is_real_arch("sm_90ab"));
  CompileOptions o;
  o.arch = "compute_90a";
  auto cubin = compile(vector_add_source(), "v.cu", o);
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), StatusCode::invalid_argument);
}

TEST(JitCompiler, NoArchWithoutDeviceAsksForOne) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present";
  auto arch = detect_device_arch();
  ASSERT_FALSE(arch.ok());
  EXPECT_EQ(arch.status().code(), StatusCode::no_device);
  EXPECT_NE(arch.status().message().find("pass an arch"), std::string::npos);
  auto cubin = compile(vector_add_source(), "v.cu", CompileOptions{});
  ASSERT_FALSE(cubin.ok());
  EXPECT_NE(cubin.status().message().find("pass an arch"), std::string::npos);
}

TEST(JitCompiler, CudaIncludeDirLookupOrder) {
  {
    testing::ScratchDir home, path;
    std::filesystem::create_directories(home.path() / "include");
    std::filesystem::create_directories(path.path() / "include");
    testing::write_file(home.path() / "include" / "cuda_runtime_api.h", {'/', '/'});
    testing::write_file(path.path() / "include" / "cuda_runtime_api.h", {'/', '/'});
    auto a = find_cuda_include_dir(fake_env({{"CUDA_HOME", home.path().string()}, {"CUDA_PATH", path.path().string()}}));
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(*a, (home.path() / "include").string());
    auto b = find_cuda_include_dir(fake_env({{"CUDA_PATH", path.path().string()}}));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*b, (path.path() / "include").string());
  }
  auto c = find_cuda_include_dir(fake_env({}));
  if (std::filesystem::exists("/usr/local/cuda/include/cuda_runtime_api.h")) {
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(*c, "/usr/local/cuda/include");
  }
}

TEST(JitCompiler, CudaHomeToMissingDirIsClearError) {
  auto r = find_cuda_include_dir(fake_env({{"CUDA_HOME", "/nonexistent/cuda-home"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::io_error);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("/nonexistent/cuda-home"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA_HOME"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA_PATH"), std::string::npos) << m;
  EXPECT_NE(m.find("/usr/local/cuda"), std::string::npos) << m;
  // And prepare() (every compile) fails the same way instead of running NVRTC.
  auto p = prepare(hopper(), fake_env({{"CUDA_HOME", "/nonexistent/cuda-home"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::io_error);
}

TEST(JitCompiler, RelativeIncludesAreResolvedToRootNames) {
  HeaderMap h = {
      {"fam/a.cuh", "#pragma once\n#include \"b.cuh\"\n  #  include \"../common/c.cuh\"\n#include <cuda_bf16.h>\n"},
      {"fam/b.cuh", "#pragma once\n#include \"common/c.cuh\"\n"},
      {"common/c.cuh", "#pragma once\n#include \"missing.cuh\"\n"},
  };
  HeaderMap r = resolve_includes(h);
  EXPECT_EQ(r["fam/a.cuh"], "#pragma once\n#include \"fam/b.cuh\"\n  #  include \"common/c.cuh\"\n#include <cuda_bf16.h>\n");
  EXPECT_EQ(r["fam/b.cuh"], h["fam/b.cuh"]);        // already a root name
  EXPECT_EQ(r["common/c.cuh"], h["common/c.cuh"]);  // unknown names are left alone
}

TEST(JitCompiler, RelativeIncludesCompile) {
  HeaderMap h = {
      {"fam/a.cuh", "#pragma once\n#include \"b.cuh\"\n#include \"../common/c.cuh\"\n"
                    "__device__ float fa(float x) { return fb(x) + fc(x); }\n"},
      {"fam/b.cuh", "#pragma once\n__device__ float fb(float x) { return 2 * x; }\n"},
      {"common/c.cuh", "#pragma once\n__device__ float fc(float x) { return 3 * x; }\n"},
  };
  CompileOptions o = hopper();
  o.headers = &h;
  auto cubin = compile("#include \"fam/a.cuh\"\nextern \"C\" __global__ void k(float* p) { p[0] = fa(p[0]); }\n",
                       "rel.cu", o);
  ASSERT_TRUE(cubin.ok()) << cubin.status().to_string();
  EXPECT_TRUE(is_elf(cubin->image));
}

// GCONV_KERNEL_SOURCES (A/B runs of kernel code): the headers come from the
// directory, with their own digest; a missing or empty directory is an error
// naming the variable.
TEST(JitCompiler, KernelSourcesDirectoryReplacesEmbeddedHeaders) {
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "fam");
  std::ofstream(dir.path() / "fam" / "x.cuh") << "#pragma once\n__device__ int fx() { return 7; }\n";
  std::ofstream(dir.path() / "notes.txt") << "not a header\n";
  auto p = prepare(hopper(), fake_env({{"GCONV_KERNEL_SOURCES", dir.path().string()}}));
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->headers->names, std::vector<std::string>{"fam/x.cuh"});
  auto embedded = prepare(hopper(), fake_env({}));
  ASSERT_TRUE(embedded.ok()) << embedded.status().to_string();
  EXPECT_FALSE(p->headers->digest.hi == embedded->headers->digest.hi &&
               p->headers->digest.lo == embedded->headers->digest.lo);
  auto cubin = compile("#include \"fam/x.cuh\"\nextern \"C\" __global__ void k(int* q) { q[0] = fx(); }\n", "x.cu", *p);
  ASSERT_TRUE(cubin.ok()) << cubin.status().to_string();
  EXPECT_TRUE(is_elf(cubin->image));

  for (const std::string bad : {(dir.path() / "missing").string(), (dir.path() / "fam" / "x.cuh").string()}) {
    auto r = prepare(hopper(), fake_env({{"GCONV_KERNEL_SOURCES", bad}}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::io_error);
    EXPECT_NE(r.status().message().find("GCONV_KERNEL_SOURCES"), std::string::npos) << r.status().message();
  }
  testing::ScratchDir empty;
  auto r = prepare(hopper(), fake_env({{"GCONV_KERNEL_SOURCES", empty.path().string()}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no .cuh"), std::string::npos) << r.status().message();
}

TEST(JitCompiler, PreparedOptionsAreTheDocumentedOnes) {
  CompileOptions o = hopper();
  o.extra = {"-DFOO=1"};
  auto p = prepare(o);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  const auto& a = p->nvrtc_args;
  auto has = [&](const std::string& s) { return std::find(a.begin(), a.end(), s) != a.end(); };
  EXPECT_TRUE(has("--std=c++17"));
  EXPECT_TRUE(has("-arch=sm_90a"));
  EXPECT_TRUE(has("-default-device"));
  EXPECT_TRUE(has("-lineinfo"));
  EXPECT_FALSE(has("--use_fast_math"));
  EXPECT_EQ(a.back(), "-DFOO=1");
  NvrtcVersion v = nvrtc_version();
  EXPECT_GE(v.major, 12);
}

}  // namespace
}  // namespace gconv::jit
