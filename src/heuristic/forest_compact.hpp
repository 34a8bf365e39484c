// Helpers of the compact model form (Forest::write_compact / load_compact;
// the layout is described in forest_compact.cpp) shared with the model
// folder code, which records a compact file's checksum in the manifest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gconv::heuristic {

// The compact file's checksum function (64-bit, not cryptographic: it
// detects corruption and swapped files, not forgery).
uint64_t compact_checksum(const void* data, size_t n);

// The checksum a compact file's header holds: of the whole file, its
// checksum field (bytes 24..31) read as zero.
uint64_t compact_file_checksum(const void* file, size_t n);

// 16 lowercase hex digits, as manifests record a checksum.
std::string checksum_hex(uint64_t checksum);

}  // namespace gconv::heuristic
