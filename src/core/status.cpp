#include "gconv/status.hpp"

namespace gconv {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid_argument";
    case StatusCode::invalid_problem: return "invalid_problem";
    case StatusCode::not_supported: return "not_supported";
    case StatusCode::parse_error: return "parse_error";
    case StatusCode::io_error: return "io_error";
    case StatusCode::cuda_error: return "cuda_error";
    case StatusCode::compile_error: return "compile_error";
    case StatusCode::out_of_memory: return "out_of_memory";
    case StatusCode::internal: return "internal";
    case StatusCode::not_found: return "not_found";
    case StatusCode::no_device: return "no_device";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(gconv::to_string(code_)) + ": " + message_;
}

}  // namespace gconv
