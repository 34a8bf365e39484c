// Argument checks of Registry::run, split so that the host-only part (null
// and alignment) is testable without a GPU. Messages name the operand both
// by its argument (a, b, out) and by its tensor for the direction, e.g.
// "a (dy) is null".
#pragma once

#include <string>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace gconv {

// Every pointer run() takes must be aligned to this (16-byte vector accesses).
inline constexpr size_t kPointerAlignment = 16;

struct OperandNames {
  const char* a;
  const char* b;
  const char* out;
};
// fwd (x, w, y), bwd_data (dy, w, dx), bwd_weight (x, dy, dw).
OperandNames operand_names(Direction d);

// Null and alignment checks of a, b, out, and of workspace when it is not null.
Status check_pointers(Direction d, const void* a, const void* b, const void* out, const void* workspace);

// Through cudaPointerGetAttributes: `ptr` must be device (or managed) memory
// of `device`. `what` names it in the message ("a (x)").
Status check_device_pointer(const void* ptr, const std::string& what, int device);

}  // namespace gconv
