#include "pool/json_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/json_depth.hpp"

namespace gconv::pool_detail {

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string index(const std::string& path, size_t i) { return fmt::format("{}[{}]", path, i); }

bool parse_pair(std::string_view s, std::pair<int, int>* out) {
  size_t x = s.find('x');
  if (x == std::string_view::npos || x == 0 || x + 1 >= s.size()) return false;
  auto num = [](std::string_view d, int* v) {
    if (d.empty() || d.size() > 6 || d[0] == '0') return false;
    auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), *v);
    return ec == std::errc() && p == d.data() + d.size();
  };
  return num(s.substr(0, x), &out->first) && num(s.substr(x + 1), &out->second);
}

Status JsonReader::parse(std::string_view text, json* out) const {
  GCONV_RETURN_IF_ERROR(check_json_depth(text, source_));
  // nlohmann reports syntax errors by exception; they stop here. Not only
  // parse_error: a number too large for a double ("1e999") is an
  // out_of_range, which escaped and terminated the process (found by
  // tests/fuzz/fuzz_device_config).
  try {
    *out = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return parse_error(fmt::format("{}: invalid JSON at byte {}: {}", source_, e.byte, e.what()));
  } catch (const json::exception& e) {
    return parse_error(fmt::format("{}: invalid JSON: {}", source_, e.what()));
  }
  return Status::Ok();
}

Status JsonReader::error(const std::string& path, const std::string& what) const {
  if (path.empty()) return parse_error(fmt::format("{}: {}", source_, what));
  return parse_error(fmt::format("{}: key '{}': {}", source_, path, what));
}

Status JsonReader::check_object(const json& v, const std::string& path,
                                std::initializer_list<const char*> allowed,
                                std::initializer_list<const char*> required) const {
  if (!v.is_object()) return error(path, "expected an object");
  for (const auto& [key, value] : v.items()) {
    if (key == "description") {
      if (!value.is_string()) return error(join(path, key), "expected a string");
      continue;
    }
    const std::string& name = key;  // clang before 16 cannot capture a structured binding
    bool known = std::any_of(allowed.begin(), allowed.end(),
                             [&](const char* a) { return name == a; });
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return parse_error(fmt::format("{}: unknown key '{}' (expected one of: {})", source_,
                                     join(path, key), list));
    }
  }
  for (const char* r : required) {
    if (!v.contains(r)) return parse_error(fmt::format("{}: missing key '{}'", source_, join(path, r)));
  }
  return Status::Ok();
}

Status JsonReader::read_int64(const json& v, const std::string& path, int64_t* out) const {
  if (!v.is_number_integer()) return error(path, "expected an integer");
  *out = v.get<int64_t>();
  return Status::Ok();
}

Status JsonReader::read_int(const json& v, const std::string& path, int* out) const {
  int64_t x = 0;
  GCONV_RETURN_IF_ERROR(read_int64(v, path, &x));
  if (x < 0 || x > std::numeric_limits<int>::max()) return error(path, "expected a non-negative int");
  *out = static_cast<int>(x);
  return Status::Ok();
}

Status JsonReader::read_string(const json& v, const std::string& path, std::string* out) const {
  if (!v.is_string()) return error(path, "expected a string");
  *out = v.get<std::string>();
  return Status::Ok();
}

Status JsonReader::read_int_list(const json& v, const std::string& path, std::vector<int>* out) const {
  if (!v.is_array() || v.empty()) return error(path, "expected a non-empty array of integers");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    int x = 0;
    GCONV_RETURN_IF_ERROR(read_int(v[i], index(path, i), &x));
    out->push_back(x);
  }
  return Status::Ok();
}

Status JsonReader::read_string_list(const json& v, const std::string& path,
                                    std::vector<std::string>* out) const {
  if (!v.is_array() || v.empty()) return error(path, "expected a non-empty array of strings");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    std::string s;
    GCONV_RETURN_IF_ERROR(read_string(v[i], index(path, i), &s));
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

Status JsonReader::read_bool_list(const json& v, const std::string& path, std::vector<bool>* out) const {
  if (!v.is_array() || v.empty()) return error(path, "expected a non-empty array of true/false");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_boolean()) return error(index(path, i), "expected true or false");
    out->push_back(v[i].get<bool>());
  }
  return Status::Ok();
}

Status JsonReader::read_pair_list(const json& v, const std::string& path,
                                  std::vector<std::pair<int, int>>* out) const {
  std::vector<std::string> items;
  GCONV_RETURN_IF_ERROR(read_string_list(v, path, &items));
  out->clear();
  for (size_t i = 0; i < items.size(); ++i) {
    std::pair<int, int> p;
    if (!parse_pair(items[i], &p)) {
      return error(index(path, i), fmt::format("expected \"AxB\" with positive integers, got \"{}\"", items[i]));
    }
    out->push_back(p);
  }
  return Status::Ok();
}

}  // namespace gconv::pool_detail
