// The hardware floor of one WILT check: hand-written AVX2 loops for three fixed rules, each compared
// against the hidden rule's cached bit-packed truth, the best any rule evaluator could do for them.
// Built and run by wilt_floor.py: argv[1] is a file of the release points (xs, ys, zs as float64).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

enum Rule { kChain, kSum, kMax };  // x > y > z, x + y > z, max(x, y, z) == x

__m256d rule(Rule which, __m256d x, __m256d y, __m256d z) {
  switch (which) {
    case kChain:
      return _mm256_and_pd(_mm256_cmp_pd(x, y, _CMP_GT_OQ), _mm256_cmp_pd(y, z, _CMP_GT_OQ));
    case kSum:
      return _mm256_cmp_pd(_mm256_add_pd(x, y), z, _CMP_GT_OQ);
    default:
      return _mm256_cmp_pd(_mm256_max_pd(_mm256_max_pd(x, y), z), x, _CMP_EQ_OQ);
  }
}

bool scalar_rule(Rule which, double x, double y, double z) {
  switch (which) {
    case kChain:
      return x > y && y > z;
    case kSum:
      return x + y > z;
    default:
      return std::max(std::max(x, y), z) == x;
  }
}

// Mismatches between the rule and the cached truth over all points, 8 lanes per truth byte.
int64_t check(Rule which, const double* x, const double* y, const double* z, size_t n, const uint8_t* truth) {
  int64_t mismatches = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned low =
        _mm256_movemask_pd(rule(which, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), _mm256_loadu_pd(z + i)));
    const unsigned high = _mm256_movemask_pd(
        rule(which, _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4), _mm256_loadu_pd(z + i + 4)));
    mismatches += __builtin_popcount((low | high << 4) ^ truth[i / 8]);
  }
  for (; i < n; ++i) mismatches += scalar_rule(which, x[i], y[i], z[i]) != ((truth[i / 8] >> (i % 8)) & 1);
  return mismatches;
}

// ORs the rule's bits for points [begin, end) into `bits` (lane i at bit i % 8 of byte i / 8).
void read_bits(Rule which, const double* x, const double* y, const double* z, size_t begin, size_t end, uint8_t* bits) {
  const size_t head = std::min(end, (begin + 7) / 8 * 8), body = head + (end - head) / 8 * 8;
  for (size_t i = begin; i < head; ++i) bits[i / 8] |= uint8_t(scalar_rule(which, x[i], y[i], z[i])) << (i % 8);
  for (size_t i = head; i < body; i += 8) {
    const __m256d low = rule(which, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), _mm256_loadu_pd(z + i));
    const __m256d high =
        rule(which, _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4), _mm256_loadu_pd(z + i + 4));
    bits[i / 8] = uint8_t(unsigned(_mm256_movemask_pd(low)) | unsigned(_mm256_movemask_pd(high)) << 4);
  }
  for (size_t i = body; i < end; ++i) bits[i / 8] |= uint8_t(scalar_rule(which, x[i], y[i], z[i])) << (i % 8);
}

// x > y > z as a compiler could specialise it for the release set's layout: the integer grid
// (points grid_start.., x, y, z in -20..20, z fastest) generated from loop counters with x > y
// hoisted out of the z loop, the other points read. Bits go to `got` in the truth's layout.
int64_t check_chain_generated(const double* x, const double* y, const double* z, size_t n, size_t grid_start,
                              const uint8_t* truth, uint8_t* got) {
  constexpr int kSide = 41, kLow = -20;
  std::fill(got, got + n / 8 + 9, 0);
  read_bits(kChain, x, y, z, 0, grid_start, got);
  const __m256d steps = _mm256_set_pd(3, 2, 1, 0);
  size_t bit = grid_start;
  for (int xi = kLow; xi < kLow + kSide; ++xi) {
    for (int yi = kLow; yi < kLow + kSide; ++yi, bit += kSide) {
      if (!(xi > yi)) continue;  // x > y hoisted: the row is all false
      const __m256d yv = _mm256_set1_pd(yi);
      uint64_t row = 0;  // bit k: the point with z = kLow + k
      for (int k = 0; k < kSide; k += 4) {
        const __m256d zv = _mm256_add_pd(_mm256_set1_pd(kLow + k), steps);
        row |= uint64_t(_mm256_movemask_pd(_mm256_cmp_pd(yv, zv, _CMP_GT_OQ))) << k;
      }
      row &= (uint64_t(1) << kSide) - 1;
      uint64_t word;  // the row's 41 bits go in at any bit offset: one unaligned 64-bit update
      std::memcpy(&word, got + bit / 8, 8);
      word |= row << (bit % 8);
      std::memcpy(got + bit / 8, &word, 8);
    }
  }
  read_bits(kChain, x, y, z, bit, n, got);
  int64_t mismatches = 0;
  size_t b = 0;
  for (; b + 8 <= n / 8 + 1; b += 8) {
    uint64_t mine, theirs;
    std::memcpy(&mine, got + b, 8);
    std::memcpy(&theirs, truth + b, 8);
    mismatches += __builtin_popcountll(mine ^ theirs);
  }
  for (; b <= n / 8; ++b) mismatches += __builtin_popcount(got[b] ^ truth[b]);
  return mismatches;
}

template <typename F>
double best_microseconds(F f, int64_t& sink) {
  double best = 1e30;
  for (int rep = 0; rep < 3000; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    sink += f();
    best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* file = std::fopen(argv[1], "rb");
  if (!file) return 2;
  std::fseek(file, 0, SEEK_END);
  const size_t n = static_cast<size_t>(std::ftell(file)) / 24;
  std::fseek(file, 0, SEEK_SET);
  std::vector<double> points(3 * n);
  if (std::fread(points.data(), 8, 3 * n, file) != 3 * n) return 2;
  std::fclose(file);
  const double *x = points.data(), *y = x + n, *z = y + n;
  const char* names[] = {"lambda x, y, z: x > y > z", "lambda x, y, z: x + y > z", "lambda x, y, z: max(x, y, z) == x"};
  int64_t sink = 0;
  for (Rule which : {kChain, kSum, kMax}) {
    std::vector<uint8_t> truth(n / 8 + 1, 0);
    for (size_t i = 0; i < n; ++i) truth[i / 8] |= uint8_t(scalar_rule(which, x[i], y[i], z[i])) << (i % 8);
    if (check(which, x, y, z, n, truth.data()) != 0) return 3;  // the kernel must agree with itself
    const double us = best_microseconds([&] { return check(which, x, y, z, n, truth.data()); }, sink);
    std::printf("%s\t%.2f\n", names[which], us);
  }
  std::vector<uint8_t> truth(n / 8 + 1, 0), got(n / 8 + 9, 0);
  for (size_t i = 0; i < n; ++i) truth[i / 8] |= uint8_t(scalar_rule(kChain, x[i], y[i], z[i])) << (i % 8);
  const size_t grid_start = 10000;
  if (check_chain_generated(x, y, z, n, grid_start, truth.data(), got.data()) != 0) return 3;
  const double us =
      best_microseconds([&] { return check_chain_generated(x, y, z, n, grid_start, truth.data(), got.data()); }, sink);
  std::printf("%s (grid generated, x > y hoisted)\t%.2f\n", names[kChain], us);
  return sink == 0 ? 0 : 4;
}
