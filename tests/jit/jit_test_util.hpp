// Shared helpers of the JIT tests: a scratch directory and the test kernel.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace gconv::jit::testing {

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gconv_jit_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline constexpr const char* kVectorAddEntry = "gconv_test_vector_add";

// An instance of src/kernels/testing/vector_add.cuh (which includes
// testing/scale.cuh); `tag` varies the text to get distinct cache keys.
inline std::string vector_add_source(const std::string& tag = "") {
  return "// " + tag +
         "\n#include \"testing/vector_add.cuh\"\n"
         "extern \"C\" __global__ void gconv_test_vector_add(const float* a, const float* b, float* y,\n"
         "                                                   float alpha, int n) {\n"
         "  gconv::testing::vector_add<4>(a, b, y, alpha, n);\n"
         "}\n";
}

inline std::vector<char> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline bool is_elf(const std::vector<char>& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F';
}

}  // namespace gconv::jit::testing
