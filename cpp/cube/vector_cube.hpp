// The cube as two 16-byte vectors, for search: a move is one byte shuffle per half.
//
// Byte i of `corners` (i < 8) is the corner cubie at position i in its low three bits and its
// twist (0..2) times 16 above; byte i of `edges` (i < 12) is the edge cubie in the low four bits
// and its flip times 16. The bytes past the cubies hold their own index, so that a shuffle maps
// them onto themselves. S * M (M applied after S, cubie.hpp) takes S's byte at M's cubie index
// and adds M's twist or flip: one shuffle (pshufb where the target has SSSE3, a short loop
// elsewhere) and two vector operations per half.
#pragma once

#include <cstdint>

#include "cube/cubie.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cogsim::cube {

using Bytes16 = uint8_t __attribute__((vector_size(16)));

// Byte i of the result is table[index[i] % 16]. (The hot helpers are always inlined, so each
// search kernel compiles them for its own target: coset_search_kernel.hpp.)
[[gnu::always_inline]] inline Bytes16 shuffle(Bytes16 table, Bytes16 index) {
#if defined(__clang__)
  Bytes16 out;
  for (int i = 0; i < 16; ++i) out[i] = table[index[i] & 15];
  return out;
#else
  return __builtin_shuffle(table, index);
#endif
}

// Bit i is the top bit of byte i.
[[gnu::always_inline]] inline uint32_t top_bits(Bytes16 v) {
#if defined(__SSE2__)
  return static_cast<uint32_t>(_mm_movemask_epi8(reinterpret_cast<__m128i>(v)));
#else
  uint32_t bits = 0;
  for (int i = 0; i < 16; ++i) bits |= static_cast<uint32_t>(v[i] >> 7) << i;
  return bits;
#endif
}

[[gnu::always_inline]] inline Bytes16 splat(uint8_t value) { return Bytes16{} + value; }

[[gnu::always_inline]] inline bool same_bytes(Bytes16 a, Bytes16 b) {
  return top_bits(reinterpret_cast<Bytes16>(a == b)) == 0xFFFF;
}

struct VectorCube {
  Bytes16 corners;
  Bytes16 edges;

  static VectorCube of(const CubieCube& c);
  CubieCube cubie() const;
  [[gnu::always_inline]] bool operator==(const VectorCube& other) const {
    return same_bytes(corners, other.corners) && same_bytes(edges, other.edges);
  }
};

constexpr uint8_t kCubieBits = 0x0F;
constexpr uint8_t kFlipBit = 0x10;
constexpr uint8_t kTwistBits = 0x30;
constexpr uint8_t kTwistThree = 0x30;

// Edges of a * b.
[[gnu::always_inline]] inline Bytes16 compose_edges(Bytes16 a, Bytes16 b) { return shuffle(a, b) ^ (b & kFlipBit); }

// Corners of a * b: twists add modulo 3 (a sum of 3 or 4 loses 3).
[[gnu::always_inline]] inline Bytes16 compose_corners(Bytes16 a, Bytes16 b) {
  const Bytes16 sum = shuffle(a, b) + (b & kTwistBits);
  return sum - (reinterpret_cast<Bytes16>(sum >= kTwistThree) & kTwistThree);
}

[[gnu::always_inline]] inline VectorCube compose(const VectorCube& a, const VectorCube& b) {
  return {compose_corners(a.corners, b.corners), compose_edges(a.edges, b.edges)};
}

inline VectorCube VectorCube::of(const CubieCube& c) {
  VectorCube v;
  for (int i = 0; i < 16; ++i) {
    v.corners[i] = static_cast<uint8_t>(i < kCorners ? c.cp[i] | c.co[i] << 4 : i);
    v.edges[i] = static_cast<uint8_t>(i < kEdges ? c.ep[i] | c.eo[i] << 4 : i);
  }
  return v;
}

inline CubieCube VectorCube::cubie() const {
  CubieCube c;
  for (int i = 0; i < kCorners; ++i) {
    c.cp[i] = corners[i] & kCubieBits;
    c.co[i] = static_cast<uint8_t>(corners[i] >> 4);
  }
  for (int i = 0; i < kEdges; ++i) {
    c.ep[i] = edges[i] & kCubieBits;
    c.eo[i] = static_cast<uint8_t>(edges[i] >> 4);
  }
  return c;
}

}  // namespace cogsim::cube
