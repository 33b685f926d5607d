// The frame digest (digest.hpp): 64-byte stripes summed into eight 64-bit lanes, as xxHash's XXH3
// accumulates them (per lane the data word added to its neighbour lane, and the product of the low and
// high halves of the word XOR a key), which SSE2 and AVX2 do two and four lanes a step: 2-3 times
// xxHash64's speed, whose multiply-rotate chain per word holds it to about 10-14 GB/s on one core. The
// key changes from stripe to stripe, so two frames whose stripes are the same in another order (a
// sprite moved by a multiple of 16 px) get different digests; every 16 stripes the lanes are scrambled
// (so the order of those runs counts too) and the keys start again. The lanes, the length and the
// bytes after the last whole stripe are then mixed with xxHash64's rounds and finalisation. The
// scalar, SSE2 and AVX2 paths give the same digest.
#include "render/digest.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// The AVX2 path is a clone chosen at run time; COGSIM_NO_CLONES leaves it out (scripts/sanitize.sh
// tests the SSE2 path).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
#include <immintrin.h>
#define COGSIM_DIGEST_AVX2 1
#endif

namespace cogsim::render {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full, kP3 = 0x165667B19E3779F9ull;
constexpr uint32_t kScramblePrime = 0x9E3779B1u;
constexpr size_t kStripe = 64, kStripesPerScramble = 16;
alignas(64) constexpr uint64_t kKey[8] = {0xbe4ba423396cfeb8ull, 0x1cad21f72c81017cull, 0xdb979083e96dd4deull,
                                          0x1f67b3b7a4a44072ull, 0x78e5c0cc4ee679cbull, 0x2172ffcc7dd05a82ull,
                                          0x8e2443f7744608b8ull, 0x4c263a81e69035e0ull};
alignas(64) constexpr uint64_t kKeyStep[8] = {0x81dadef4bc2dd44dull, 0x29ebc7f8ffbf94c5ull, 0xd8ab5cc1cb9b7d31ull,
                                              0x7c0f6e5a2a3b2b1dull, 0x3f349ce33f76faa9ull, 0xd6d7e5f1b8c9a0b3ull,
                                              0xa1c5f3e87d6b4925ull, 0x5b8e7c3d1f2a6e47ull};

uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint64_t round64(uint64_t lane, uint64_t input) { return std::rotl(lane + input * kP2, 31) * kP1; }

// xxHash64's construction over 8-byte words: the digest of short inputs and of what follows the
// stripes.
uint64_t digest_words(const uint8_t* bytes, size_t n, uint64_t seed) {
  uint64_t lanes[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) lanes[k] = round64(lanes[k], load64(bytes + i + 8 * k));
  }
  uint64_t h = std::rotl(lanes[0], 1) + std::rotl(lanes[1], 7) + std::rotl(lanes[2], 12) + std::rotl(lanes[3], 18);
  for (const uint64_t lane : lanes) h = (h ^ round64(0, lane)) * kP1 + kP3;
  h += n;
  for (; i + 8 <= n; i += 8) h = std::rotl(h ^ round64(0, load64(bytes + i)), 27) * kP1 + kP3;
  for (; i < n; ++i) h = std::rotl(h ^ (bytes[i] * kP3), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

// Adds `stripes` stripes from `bytes` into the eight lanes `acc`: the keys move on a stripe a step and
// start again after each scramble (every kStripesPerScramble stripes, not after a shorter last run).
// The path of CPUs without SSE2, and the reference the vector paths compute lane by lane.
[[maybe_unused]] void accumulate_scalar(const uint8_t* bytes, size_t stripes, uint64_t* acc) {
  for (size_t s = 0; s < stripes; s += kStripesPerScramble) {
    const size_t count = std::min(kStripesPerScramble, stripes - s);
    uint64_t key[8];
    std::memcpy(key, kKey, sizeof key);
    for (size_t t = 0; t < count; ++t) {
      for (int j = 0; j < 8; ++j) {
        const uint64_t word = load64(bytes + (s + t) * kStripe + 8 * j), keyed = word ^ key[j];
        acc[j ^ 1] += word;
        acc[j] += (keyed & 0xFFFFFFFFu) * (keyed >> 32);
        key[j] += kKeyStep[j];
      }
    }
    if (count < kStripesPerScramble) break;
    for (int j = 0; j < 8; ++j) acc[j] = (acc[j] ^ (acc[j] >> 47) ^ kKey[j]) * kScramblePrime;
  }
}

#if defined(__SSE2__)
// The scalar loop, two lanes a step. A 64-bit product with the 32-bit prime is its low half's product
// plus its high half's shifted up.
void accumulate_sse2(const uint8_t* bytes, size_t stripes, uint64_t* acc) {
  __m128i sums[4], first[4], steps[4];
  const __m128i prime = _mm_set1_epi64x(kScramblePrime);
  for (int j = 0; j < 4; ++j) {
    sums[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(acc) + j);
    first[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(kKey) + j);
    steps[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(kKeyStep) + j);
  }
  for (size_t s = 0; s < stripes; s += kStripesPerScramble) {
    const size_t count = std::min(kStripesPerScramble, stripes - s);
    __m128i keys[4] = {first[0], first[1], first[2], first[3]};
    for (size_t t = 0; t < count; ++t) {
      const uint8_t* stripe = bytes + (s + t) * kStripe;
      for (int j = 0; j < 4; ++j) {
        const __m128i word = _mm_loadu_si128(reinterpret_cast<const __m128i*>(stripe) + j);
        const __m128i keyed = _mm_xor_si128(word, keys[j]);
        const __m128i product = _mm_mul_epu32(keyed, _mm_shuffle_epi32(keyed, 0x31));  // low half x high half
        sums[j] = _mm_add_epi64(sums[j], _mm_add_epi64(product, _mm_shuffle_epi32(word, 0x4E)));  // lanes swapped
        keys[j] = _mm_add_epi64(keys[j], steps[j]);
      }
    }
    if (count < kStripesPerScramble) break;
    for (int j = 0; j < 4; ++j) {
      const __m128i mixed = _mm_xor_si128(_mm_xor_si128(sums[j], _mm_srli_epi64(sums[j], 47)), first[j]);
      const __m128i high = _mm_slli_epi64(_mm_mul_epu32(_mm_srli_epi64(mixed, 32), prime), 32);
      sums[j] = _mm_add_epi64(_mm_mul_epu32(mixed, prime), high);
    }
  }
  for (int j = 0; j < 4; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(acc) + j, sums[j]);
}
#endif

#if defined(COGSIM_DIGEST_AVX2)
__attribute__((target("avx2"))) void accumulate_avx2(const uint8_t* bytes, size_t stripes, uint64_t* acc) {
  __m256i sums[2], first[2], steps[2];
  const __m256i prime = _mm256_set1_epi64x(kScramblePrime);
  for (int j = 0; j < 2; ++j) {
    sums[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc) + j);
    first[j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(kKey) + j);
    steps[j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(kKeyStep) + j);
  }
  for (size_t s = 0; s < stripes; s += kStripesPerScramble) {
    const size_t count = std::min(kStripesPerScramble, stripes - s);
    __m256i keys[2] = {first[0], first[1]};
    for (size_t t = 0; t < count; ++t) {
      const uint8_t* stripe = bytes + (s + t) * kStripe;
      for (int j = 0; j < 2; ++j) {
        const __m256i word = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(stripe) + j);
        const __m256i keyed = _mm256_xor_si256(word, keys[j]);
        const __m256i product = _mm256_mul_epu32(keyed, _mm256_shuffle_epi32(keyed, 0x31));
        sums[j] = _mm256_add_epi64(sums[j], _mm256_add_epi64(product, _mm256_shuffle_epi32(word, 0x4E)));
        keys[j] = _mm256_add_epi64(keys[j], steps[j]);
      }
    }
    if (count < kStripesPerScramble) break;
    for (int j = 0; j < 2; ++j) {
      const __m256i mixed = _mm256_xor_si256(_mm256_xor_si256(sums[j], _mm256_srli_epi64(sums[j], 47)), first[j]);
      const __m256i high = _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(mixed, 32), prime), 32);
      sums[j] = _mm256_add_epi64(_mm256_mul_epu32(mixed, prime), high);
    }
  }
  for (int j = 0; j < 2; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc) + j, sums[j]);
}
#endif

using Accumulate = void (*)(const uint8_t*, size_t, uint64_t*);

Accumulate best_accumulate() {
#if defined(COGSIM_DIGEST_AVX2)
  if (__builtin_cpu_supports("avx2")) return accumulate_avx2;
#endif
#if defined(__SSE2__)
  return accumulate_sse2;
#else
  return accumulate_scalar;
#endif
}

uint64_t digest_with(Accumulate accumulate, const uint8_t* bytes, size_t n, uint64_t seed) {
  const size_t stripes = n / kStripe;
  if (stripes == 0) return digest_words(bytes, n, seed);
  uint64_t acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = seed ^ kKey[j];
  accumulate(bytes, stripes, acc);
  uint64_t h = seed ^ (n * kP1);
  for (const uint64_t lane : acc) h = std::rotl(h ^ round64(0, lane), 27) * kP1 + kP3;
  return digest_words(bytes + stripes * kStripe, n - stripes * kStripe, h);
}

}  // namespace

uint64_t digest64(const uint8_t* bytes, size_t n, uint64_t seed) {
  static const Accumulate accumulate = best_accumulate();
  return digest_with(accumulate, bytes, n, seed);
}

}  // namespace cogsim::render
