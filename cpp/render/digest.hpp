// A 64-bit digest of a frame's bytes, for finding a frame that was seen before in a run's lifetime.
//
// Four lanes of multiply-rotate rounds over 8-byte words (the round and the final mixing of xxHash64's
// construction), about 10 GB/s on one core. Not cryptographic and never stored: a frame found by its
// digest is compared whole before it is taken as the same, so a collision costs one comparison, never
// a wrong frame. Words are read in the machine's byte order: digests are compared within one process.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cogsim::render {

inline uint64_t digest64(const uint8_t* bytes, size_t n, uint64_t seed) {
  constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full, kP3 = 0x165667B19E3779F9ull;
  const auto word = [](const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  const auto round = [](uint64_t lane, uint64_t input) { return std::rotl(lane + input * kP2, 31) * kP1; };
  uint64_t lanes[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) lanes[k] = round(lanes[k], word(bytes + i + 8 * k));
  }
  uint64_t h = std::rotl(lanes[0], 1) + std::rotl(lanes[1], 7) + std::rotl(lanes[2], 12) + std::rotl(lanes[3], 18);
  for (const uint64_t lane : lanes) h = (h ^ round(0, lane)) * kP1 + kP3;
  h += n;
  for (; i + 8 <= n; i += 8) h = std::rotl(h ^ round(0, word(bytes + i)), 27) * kP1 + kP3;
  for (; i < n; ++i) h = std::rotl(h ^ (bytes[i] * kP3), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

}  // namespace cogsim::render
