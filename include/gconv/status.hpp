// gconv::Status: the error type of every fallible public call.
//
// Contract: the library never throws across its API, never prints to stdout
// and never exits. A call that can fail returns a Status (or a Result<T>,
// which holds either a value or a non-ok Status). Messages name the field or
// the call that failed and why, in one line, so a caller can show them as is.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace gconv {

enum class StatusCode : int {
  ok = 0,
  invalid_argument = 1,  // a bad value from the caller (field named in the message)
  invalid_problem = 2,   // a Problem that fails validation
  not_supported = 3,     // valid input that this kernel / build cannot handle
  parse_error = 4,       // malformed spec, CSV, JSON, filter expression
  io_error = 5,          // file system
  cuda_error = 6,        // a CUDA runtime call failed (its text is in the message)
  compile_error = 7,     // NVRTC failed (its log is in the message)
  out_of_memory = 8,
  internal = 9,          // a bug in gconv
  not_found = 10,        // a named kernel, model or file that does not exist
  no_device = 11,        // no CUDA device is present
};

const char* to_string(StatusCode code);

class Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == StatusCode::ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid_problem: C (7) is not divisible by G (2)"
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::invalid_argument, std::move(m)}; }
inline Status invalid_problem(std::string m) { return {StatusCode::invalid_problem, std::move(m)}; }
inline Status parse_error(std::string m) { return {StatusCode::parse_error, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::io_error, std::move(m)}; }
inline Status not_supported(std::string m) { return {StatusCode::not_supported, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::internal, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::not_found, std::move(m)}; }

// A value or an error. Accessing value() of an error Result is a bug (asserted).
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}    // NOLINT: must be non-ok
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace gconv

// Internal convenience: return the status if it is not ok.
#define GCONV_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::gconv::Status gconv_s_ = (expr);       \
    if (!gconv_s_.ok()) return gconv_s_;     \
  } while (0)
