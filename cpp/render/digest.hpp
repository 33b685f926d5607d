// A 64-bit digest of a frame's bytes, for finding a frame that was seen before in a run's lifetime.
//
// Not cryptographic and never stored: a frame found by its digest is compared whole before it is taken
// as the same, so a collision costs one comparison, never a wrong frame. Words are read in the
// machine's byte order: digests are compared within one process.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cogsim::render {

// The digest of `n` bytes, seeded (a chain of calls digests several stretches as one).
uint64_t digest64(const uint8_t* bytes, size_t n, uint64_t seed);

}  // namespace cogsim::render
