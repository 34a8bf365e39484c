// Strict reading of the config JSON files (arch rules, pools): every error is
// a parse_error naming the file and the key path ("configs/pools/x.json: key
// 'dtypes.bf16[0].tile_m': expected an array of integers"), unknown keys are
// errors (a typo must not silently drop a trait list), and a "description"
// string is allowed in every object so the files document themselves.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gconv/status.hpp"

namespace gconv::pool_detail {

using nlohmann::json;

class JsonReader {
 public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  // Parses text; a syntax error names the byte offset nlohmann reports.
  Status parse(std::string_view text, json* out) const;

  Status error(const std::string& path, const std::string& what) const;

  // `v` must be an object whose keys are all in `allowed` (plus
  // "description"), holding every key in `required`.
  Status check_object(const json& v, const std::string& path,
                      std::initializer_list<const char*> allowed,
                      std::initializer_list<const char*> required) const;

  Status read_int(const json& v, const std::string& path, int* out) const;
  Status read_int64(const json& v, const std::string& path, int64_t* out) const;
  Status read_string(const json& v, const std::string& path, std::string* out) const;
  // A non-empty array.
  Status read_int_list(const json& v, const std::string& path, std::vector<int>* out) const;
  Status read_string_list(const json& v, const std::string& path, std::vector<std::string>* out) const;
  Status read_bool_list(const json& v, const std::string& path, std::vector<bool>* out) const;

  // "AxB" with positive integers A and B (warp layouts, direct tiles).
  Status read_pair_list(const json& v, const std::string& path,
                        std::vector<std::pair<int, int>>* out) const;

 private:
  std::string source_;
};

// Joins a key path: join("igemm", "tile_m") == "igemm.tile_m".
std::string join(const std::string& path, const std::string& key);
std::string index(const std::string& path, size_t i);

// "8x16" -> {8, 16}; false when malformed.
bool parse_pair(std::string_view s, std::pair<int, int>* out);

}  // namespace gconv::pool_detail
