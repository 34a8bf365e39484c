// UBJSON (draft 12, as nlohmann reads it): a value is a type marker and its
// payload; containers are '[' ... ']' and '{' (key value)* '}', or, when
// optimized, '[' '$' type '#' count followed by `count` payloads of that
// type without markers ('#' count alone: markers kept, no end marker).
// Object keys are strings without the 'S' marker. 'N' is a no-op.
#include "heuristic/ubjson_depth.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace gconv::heuristic {

namespace {

// Payload size of a fixed-size type, -1 for others.
int fixed_size(char t) {
  switch (t) {
    case 'Z': case 'T': case 'F': return 0;
    case 'i': case 'U': case 'C': return 1;
    case 'I': return 2;
    case 'l': case 'd': return 4;
    case 'L': case 'D': return 8;
    default: return -1;
  }
}

class Scanner {
 public:
  Scanner(std::string_view b, const std::string& source, int max_depth)
      : b_(b), source_(source), max_depth_(max_depth) {}
  Status run();

 private:
  struct Frame {
    bool object;
    char type;          // element type of an optimized container, else 0
    int64_t remaining;  // elements left; -1: until the end marker
  };
  Status error(const std::string& what) const {
    return parse_error(fmt::format("{}: not valid UBJSON at byte {}: {}", source_, pos_, what));
  }
  Status byte(char* c) {
    if (pos_ >= b_.size()) return error("cut short");
    *c = b_[pos_++];
    return Status::Ok();
  }
  Status skip(uint64_t n) {
    if (n > b_.size() - pos_) return error("cut short");
    pos_ += n;
    return Status::Ok();
  }
  Status integer(char marker, int64_t* v);
  Status length(int64_t* n);  // a marker and an integer >= 0
  Status value(char marker);  // consumes the payload; containers push a frame
  Status open(bool object);

  std::string_view b_;
  const std::string& source_;
  int max_depth_;
  size_t pos_ = 0;
  std::vector<Frame> stack_;
};

Status Scanner::integer(char marker, int64_t* v) {
  const int n = fixed_size(marker);
  if (n <= 0 || marker == 'd' || marker == 'D' || marker == 'C') return error("expected an integer type");
  if (size_t(n) > b_.size() - pos_) return error("cut short");
  uint64_t u = 0;
  for (int i = 0; i < n; ++i) u = (u << 8) | uint8_t(b_[pos_ + size_t(i)]);  // big-endian
  pos_ += size_t(n);
  switch (marker) {
    case 'i': *v = int8_t(u); break;
    case 'U': *v = int64_t(u); break;
    case 'I': *v = int16_t(u); break;
    case 'l': *v = int32_t(u); break;
    default: *v = int64_t(u); break;
  }
  return Status::Ok();
}

Status Scanner::length(int64_t* n) {
  char m = 0;
  GCONV_RETURN_IF_ERROR(byte(&m));
  GCONV_RETURN_IF_ERROR(integer(m, n));
  if (*n < 0) return error("negative length");
  return Status::Ok();
}

Status Scanner::open(bool object) {
  if (int(stack_.size()) >= max_depth_) return error(fmt::format("nested deeper than {} levels", max_depth_));
  Frame f{object, 0, -1};
  if (pos_ < b_.size() && b_[pos_] == '$') {
    ++pos_;
    GCONV_RETURN_IF_ERROR(byte(&f.type));
    if (pos_ >= b_.size() || b_[pos_] != '#') return error("'$' without '#'");
  }
  if (pos_ < b_.size() && b_[pos_] == '#') {
    ++pos_;
    GCONV_RETURN_IF_ERROR(length(&f.remaining));
    // Every element takes a byte at least (a key's length, a marker, a
    // payload), except markerless null/true/false: those are refused in
    // numbers no file could carry.
    if (uint64_t(f.remaining) > b_.size() - pos_)
      return error(fmt::format("a container of {} elements in {} bytes", f.remaining, b_.size() - pos_));
    const int size = fixed_size(f.type);
    if (!object && size >= 0) {  // an array of fixed-size payloads: skip it whole
      GCONV_RETURN_IF_ERROR(skip(uint64_t(f.remaining) * uint64_t(size)));
      return Status::Ok();
    }
  }
  stack_.push_back(f);
  return Status::Ok();
}

Status Scanner::value(char m) {
  if (m == '[' || m == '{') return open(m == '{');
  if (m == 'S' || m == 'H') {
    int64_t n;
    GCONV_RETURN_IF_ERROR(length(&n));
    return skip(uint64_t(n));
  }
  const int size = fixed_size(m);
  if (size < 0) return error(fmt::format("unknown type marker 0x{:02x}", uint8_t(m)));
  return skip(uint64_t(size));
}

Status Scanner::run() {
  char m = 0;
  do GCONV_RETURN_IF_ERROR(byte(&m));
  while (m == 'N');
  GCONV_RETURN_IF_ERROR(value(m));
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.remaining == 0) {
      stack_.pop_back();
      continue;
    }
    if (f.remaining < 0) {
      while (pos_ < b_.size() && b_[pos_] == 'N') ++pos_;
      if (pos_ < b_.size() && b_[pos_] == (f.object ? '}' : ']')) {
        ++pos_;
        stack_.pop_back();
        continue;
      }
    } else {
      --f.remaining;
    }
    if (f.object) {
      int64_t n;
      GCONV_RETURN_IF_ERROR(length(&n));
      GCONV_RETURN_IF_ERROR(skip(uint64_t(n)));
    }
    if (f.type) {
      m = f.type;
    } else {
      do GCONV_RETURN_IF_ERROR(byte(&m));
      while (m == 'N');
    }
    GCONV_RETURN_IF_ERROR(value(m));  // may push: `f` is not used after this
  }
  return Status::Ok();
}

}  // namespace

Status check_ubjson_depth(std::string_view bytes, const std::string& source, int max_depth) {
  return Scanner(bytes, source, max_depth).run();
}

}  // namespace gconv::heuristic
