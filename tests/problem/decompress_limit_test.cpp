// Decompression bombs and oversized files stop at the size limit with an
// io_error naming the file and the limit, for plain, gzip and zstd files
// (a small gzip bomb once grew to gigabytes).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "problem/read_text.hpp"

namespace gconv {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

class DecompressLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gconv_bomb_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // 8 MiB of one repeated line: compresses to a few KiB.
    std::string line = "fwd_bf16_n8c64k64g1_h14w14_y3x3_s1_p1_dil1\n";
    std::ofstream f(dir_ / "big.txt", std::ios::binary);
    for (size_t n = 0; n < (size_t(8) << 20); n += line.size()) f << line;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string compress(const char* tool, const char* ext) {
    const std::string out = (dir_ / (std::string("big.txt") + ext)).string();
    const std::string cmd = std::string(tool) + " -c " + (dir_ / "big.txt").string() + " > " + out;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out;
  }
  fs::path dir_;
};

TEST_F(DecompressLimit, BombsAndBigFilesStopAtTheLimit) {
  const std::string files[] = {(dir_ / "big.txt").string(), compress("gzip -1", ".gz"), compress("zstd -q -1", ".zst")};
  for (const std::string& path : files) {
    ASSERT_LT(fs::file_size(path), size_t(9) << 20) << path;
    auto r = problem_io::read_text_file(path, size_t(1) << 20);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), StatusCode::io_error);
    EXPECT_TRUE(has(r.status().message(), path + ": larger than the 1 MiB limit")) << r.status().message();
    // Within a limit that fits, the same file reads whole.
    auto whole = problem_io::read_text_file(path, size_t(16) << 20);
    ASSERT_TRUE(whole.ok()) << whole.status().to_string();
    EXPECT_EQ(whole->size(), fs::file_size(dir_ / "big.txt"));
  }
  EXPECT_EQ(problem_io::kMaxTextBytes, size_t(1) << 30);  // the default every reader uses
}

}  // namespace
}  // namespace gconv
