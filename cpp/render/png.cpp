#include "render/png.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "render/digest.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cogsim::render {

namespace {

constexpr uint32_t kAdlerModulus = 65521;
constexpr size_t kMaxMatch = 258;
constexpr int kLiteralSymbols = 286;  // 0..255 bytes, 256 end of block, 257..285 match lengths
constexpr int kDistanceSymbols = 30;
constexpr int kEndOfBlock = 256;

// CRC-32 (PNG's, the polynomial 0xEDB88320) eight bytes a step: table k holds the CRC of a byte
// followed by k zero bytes ("slicing by 8").
struct CrcTables {
  std::array<std::array<uint32_t, 256>, 8> of{};
  constexpr CrcTables() {
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      of[0][n] = c;
    }
    for (size_t k = 1; k < 8; ++k) {
      for (uint32_t n = 0; n < 256; ++n) of[k][n] = (of[k - 1][n] >> 8) ^ of[0][of[k - 1][n] & 0xFF];
    }
  }
};
constexpr CrcTables kCrc;

uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// The CRC-32 of `n` bytes after stretches whose CRC-32 is `crc` (0 for none), as zlib's crc32().
uint32_t crc32(const uint8_t* bytes, size_t n, uint32_t crc = 0) {
  uint32_t c = crc ^ 0xFFFFFFFFu;
  const auto& t = kCrc.of;
  for (; n >= 8; bytes += 8, n -= 8) {
    const uint32_t lo = load_le32(bytes) ^ c, hi = load_le32(bytes + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^
        t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++bytes, --n) c = t[0][(c ^ *bytes) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// zlib's Adler-32, 32 bytes a step in 32 lanes (loops the compiler vectorises): per lane the sum of
// its bytes, and the sum of those sums before each step, give s1 and s2 of a stretch of up to 64 KiB
// at once (s2 weighs each byte by the count of bytes from it to the stretch's end, itself included).
class Adler32 {
 public:
  void update(const uint8_t* bytes, size_t n) {
    constexpr size_t kLanes = 32, kSteps = 2048;  // a lane's running total stays below 2^32
    while (n >= kLanes) {
      const size_t steps = std::min(n / kLanes, kSteps);
      std::array<uint32_t, kLanes> sums{}, earlier{};
      for (size_t step = 0; step < steps; ++step, bytes += kLanes) {
        for (size_t j = 0; j < kLanes; ++j) {
          earlier[j] += sums[j];
          sums[j] += bytes[j];
        }
      }
      uint64_t total = 0, weighted = 0, by_lane = 0;
      for (size_t j = 0; j < kLanes; ++j) {
        total += sums[j];
        weighted += static_cast<uint64_t>(earlier[j]) + sums[j];
        by_lane += j * static_cast<uint64_t>(sums[j]);
      }
      s2_ = (s2_ + steps * kLanes * s1_ + kLanes * weighted - by_lane) % kAdlerModulus;
      s1_ = (s1_ + total) % kAdlerModulus;
      n -= steps * kLanes;
    }
    for (; n > 0; --n, ++bytes) s1_ += *bytes, s2_ += s1_;
    s1_ %= kAdlerModulus, s2_ %= kAdlerModulus;
  }
  uint32_t value() const { return static_cast<uint32_t>(s2_ << 16 | s1_); }

 private:
  uint64_t s1_ = 1, s2_ = 0;
};

// The length symbol of every match length 3..258 (RFC 1951, 3.2.5) and its extra bits.
struct LengthCode {
  uint16_t symbol;
  uint8_t extra_count;
  uint8_t extra_value;
};

struct LengthCodes {
  std::array<LengthCode, kMaxMatch + 1> of{};
  constexpr LengthCodes() {
    constexpr std::array<uint16_t, 29> base = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    constexpr std::array<uint8_t, 29> extra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (uint32_t length = 3; length <= kMaxMatch; ++length) {
      uint32_t k = 28;
      while (base[k] > length) --k;
      of[length] = {static_cast<uint16_t>(257 + k), extra[k], static_cast<uint8_t>(length - base[k])};
    }
  }
};
constexpr LengthCodes kLengths;

// A run of `literals` literal bytes followed by a match of `length` bytes (none when 0) at distance 1
// (`pixel` false: a byte repeated) or one pixel, 3 or 4 bytes (`pixel` true). The literals are the
// data's own bytes, read again when the block is written.
struct Token {
  uint32_t literals;
  uint16_t length;
  bool pixel;
};

// The distance symbol of a match (distances 1..4 are symbols 0..3, no extra bits).
constexpr uint32_t distance_code(bool pixel, size_t channels) {
  return pixel ? static_cast<uint32_t>(channels - 1) : 0;
}

// Bits into a buffer sized beforehand (with 8 bytes to spare), least significant first (as deflate
// packs them). Puts gather up to 56 bits; flush() stores eight bytes, keeps the whole bytes among them
// and carries the rest (under 8 bits) over: no branch on how full the buffer is. Kept in a local
// variable, its state stays in registers (stores through a byte pointer may alias any member).
class BitWriter {
 public:
  explicit BitWriter(uint8_t* out) : out_(out) {}
  void put(uint64_t value, int count) {
    pending_ |= value << count_;
    count_ += count;
  }
  void flush() {
    const uint64_t bytes = std::endian::native == std::endian::little ? pending_ : __builtin_bswap64(pending_);
    std::memcpy(out_, &bytes, 8);
    out_ += count_ >> 3;
    pending_ = (count_ & ~7) == 64 ? 0 : pending_ >> (count_ & ~7);
    count_ &= 7;
  }
  // Puts and flushes `value` of up to 56 bits.
  void write(uint64_t value, int count) {
    put(value, count);
    flush();
  }
  // Flushes the last partial byte; returns the end of what was written.
  uint8_t* finish() {
    flush();
    if (count_ > 0) *out_++ = static_cast<uint8_t>(pending_);
    count_ = 0;
    return out_;
  }

 private:
  uint8_t* out_;
  uint64_t pending_ = 0;
  int count_ = 0;
};

// A prefix code: per symbol its length in bits and its code, bit-reversed for the LSB-first stream.
struct Code {
  std::vector<uint8_t> lengths;
  std::vector<uint16_t> codes;
};

// Sorts keys (a weight above 16 bits of symbol, in the symbols' order) by weight, a stable radix sort
// on its bytes (`bits`: the weights' bits or'ed, so that no pass sorts on zeros): keys of one weight
// keep the symbols' order, the order std::sort gives, in fewer steps than its comparisons.
void sort_by_weight(std::vector<uint64_t>& keys, uint32_t bits) {
  thread_local std::vector<uint64_t> sorted;
  sorted.resize(keys.size());
  for (int shift = 16; bits != 0; shift += 8, bits >>= 8) {
    std::array<uint32_t, 256> start{};
    for (uint64_t key : keys) ++start[(key >> shift) & 0xFF];
    for (uint32_t digit = 0, total = 0; digit < 256; ++digit) total += std::exchange(start[digit], total);
    for (uint64_t key : keys) sorted[start[(key >> shift) & 0xFF]++] = key;
    keys.swap(sorted);
  }
}

// Huffman code lengths for `freq`, none longer than max_bits (miniz's rebalancing of an optimal
// tree), each used symbol at least 1 bit; at least two symbols get a length so that the code is
// complete. Ties are broken by symbol number, so the lengths are the same everywhere.
std::vector<uint8_t> code_lengths(std::vector<uint32_t> freq, int max_bits) {
  const int n = static_cast<int>(freq.size());
  for (int s = 0, used = static_cast<int>(std::count_if(freq.begin(), freq.end(), [](uint32_t f) { return f; }));
       used < 2 && s < n; ++s) {
    if (freq[s] == 0) freq[s] = 1, ++used;
  }
  // The optimal tree, merging the two lightest nodes (ties: a leaf before a merged node, leaves by
  // symbol, merged nodes by age), from two queues: the leaves sorted once, and the merged nodes, which
  // come out no lighter than the one before.
  thread_local std::vector<uint64_t> keys, weight;
  thread_local std::vector<int> parent, depth;
  keys.clear();
  uint32_t most = 0;
  for (int s = 0; s < n; ++s) {
    if (freq[s]) keys.push_back(static_cast<uint64_t>(freq[s]) << 16 | static_cast<uint64_t>(s)), most |= freq[s];
  }
  sort_by_weight(keys, most);
  const int leaves = static_cast<int>(keys.size());
  weight.assign(n + leaves, 0);
  parent.assign(n + leaves, -1);
  for (int s = 0; s < n; ++s) weight[s] = freq[s];
  int leaf = 0, merged = n, next = n;
  const auto lightest = [&]() {
    const bool take_leaf = leaf < leaves && (merged == next || weight[keys[leaf] & 0xFFFF] <= weight[merged]);
    return take_leaf ? static_cast<int>(keys[leaf++] & 0xFFFF) : merged++;
  };
  for (int joins = 0; joins < leaves - 1; ++joins) {
    const int a = lightest(), b = lightest();
    weight[next] = weight[a] + weight[b];
    parent[a] = parent[b] = next++;
  }
  // Depths from the root (the last node made) down: a node's parent is made after it.
  depth.assign(next, 0);
  for (int node = next - 2; node >= n; --node) depth[node] = depth[parent[node]] + 1;
  std::array<int, 64> count{};
  for (int k = 0; k < leaves; ++k) {
    const int s = static_cast<int>(keys[k] & 0xFFFF);
    ++count[std::min(leaves > 1 ? depth[parent[s]] + 1 : 0, max_bits)];
  }
  uint64_t kraft = 0;
  for (int l = 1; l <= max_bits; ++l) kraft += static_cast<uint64_t>(count[l]) << (max_bits - l);
  while (kraft > (1ull << max_bits)) {  // too many short codes: lengthen one, as miniz does
    --count[max_bits];
    for (int l = max_bits - 1; l > 0; --l) {
      if (count[l]) {
        --count[l];
        count[l + 1] += 2;
        break;
      }
    }
    --kraft;
  }
  // The most frequent symbols get the shortest lengths (ties: the lower symbol first): the leaves'
  // order reversed a weight at a time, each weight's symbols kept in their rising order.
  std::vector<uint8_t> lengths(n, 0);
  int l = 1, left_at_l = count[1];
  const auto assign = [&](uint64_t key) {
    while (left_at_l == 0) left_at_l = count[++l];
    lengths[key & 0xFFFF] = static_cast<uint8_t>(l);
    --left_at_l;
  };
  for (size_t end = keys.size(); end > 0;) {
    size_t begin = end - 1;
    while (begin > 0 && keys[begin - 1] >> 16 == keys[end - 1] >> 16) --begin;
    for (size_t k = begin; k < end; ++k) assign(keys[k]);
    end = begin;
  }
  return lengths;
}

// Each byte with its bits in reverse order (deflate sends a code's bits from the most significant on).
struct ReversedBytes {
  std::array<uint32_t, 256> of{};
  constexpr ReversedBytes() {
    for (uint32_t b = 0; b < 256; ++b) {
      for (int i = 0; i < 8; ++i) of[b] |= ((b >> i) & 1u) << (7 - i);
    }
  }
};
constexpr ReversedBytes kReversed;

// The canonical code of the lengths (RFC 1951, 3.2.2).
Code canonical(std::vector<uint8_t> lengths) {
  std::array<uint16_t, 17> per_length{}, next{};
  for (uint8_t l : lengths) ++per_length[l];
  per_length[0] = 0;
  for (int l = 1, code = 0; l <= 16; ++l) {
    code = (code + per_length[l - 1]) << 1;
    next[l] = static_cast<uint16_t>(code);
  }
  Code out{std::move(lengths), {}};
  out.codes.assign(out.lengths.size(), 0);
  for (size_t s = 0; s < out.lengths.size(); ++s) {
    const int l = out.lengths[s];
    if (!l) continue;
    const uint32_t code = next[l]++;
    out.codes[s] = static_cast<uint16_t>((kReversed.of[code & 0xFF] << 8 | kReversed.of[code >> 8]) >> (16 - l));
  }
  return out;
}

// How many bytes from `at` on (at most kMaxMatch, not past `end`) equal the byte `distance` before.
size_t repeat_length(const uint8_t* data, size_t at, size_t end, size_t distance) {
  const size_t limit = std::min(end, at + kMaxMatch);
  size_t j = at;
  for (; j + 8 <= limit; j += 8) {
    uint64_t here, before;
    std::memcpy(&here, data + j, 8);
    std::memcpy(&before, data + j - distance, 8);
    if (here != before) {
      if constexpr (std::endian::native == std::endian::little) return j - at + std::countr_zero(here ^ before) / 8;
      while (data[j] == data[j - distance]) ++j;
      return j - at;
    }
  }
  while (j < limit && data[j] == data[j - distance]) ++j;
  return j - at;
}

// a(x) b(x) modulo the CRC-32 polynomial, bit 31 the coefficient of x^0 (zlib's multmodp).
constexpr uint32_t crc_multiply(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    b = (b & 1) ? (b >> 1) ^ 0xEDB88320u : b >> 1;
  }
  return product;
}

// x^(2^k) modulo the CRC-32 polynomial for k = 0..31 (zlib's x2n_table).
struct CrcPowers {
  std::array<uint32_t, 32> of{};
  constexpr CrcPowers() {
    uint32_t p = 1u << 30;  // x^1
    for (auto& power : of) power = p, p = crc_multiply(p, p);
  }
};
constexpr CrcPowers kCrcPowers;

// zlib's crc32_combine: the CRC-32 of two stretches one after the other, from theirs and the second
// one's length (x^(8 n) times the first's, plus the second's), so a cached band's CRC is reused
// instead of its bytes read again.
uint32_t crc32_combine(uint32_t first, uint32_t second, size_t second_length) {
  uint32_t shift = 1u << 31;  // x^0
  for (size_t n = second_length, k = 3; n != 0; n >>= 1, ++k) {
    if (n & 1) shift = crc_multiply(kCrcPowers.of[k & 31], shift);
  }
  return crc_multiply(shift, first) ^ second;
}

// zlib's adler32_combine: the Adler-32 of two stretches one after the other, from theirs and the
// second one's length.
uint32_t adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
  const uint64_t rem = second_length % kAdlerModulus;
  const uint64_t s1 = ((first & 0xFFFF) + (second & 0xFFFF) + kAdlerModulus - 1) % kAdlerModulus;
  const uint64_t s2 = (rem * (first & 0xFFFF) + (first >> 16) + (second >> 16) + kAdlerModulus - rem) % kAdlerModulus;
  return static_cast<uint32_t>(s2 << 16 | s1);
}

// The filtered rows of a band of `count` rows from `rows` on: filter byte 0 (None) then the row for
// the frame's first row, filter byte 2 (Up) then the row's difference from the row above (the one
// before `rows` for the band's first row), byte by byte modulo 256. Returns their Adler-32, each row
// summed while it is in the cache.
uint32_t filter_band(const uint8_t* rows, size_t row_bytes, size_t count, bool frame_start, std::vector<uint8_t>& out) {
  out.resize((row_bytes + 1) * count);
  uint8_t* target = out.data();
  Adler32 adler;
  for (size_t y = 0; y < count; ++y, target += row_bytes + 1) {
    const uint8_t* row = rows + y * row_bytes;
    if (y == 0 && frame_start) {
      target[0] = 0;
      std::memcpy(target + 1, row, row_bytes);
    } else {
      target[0] = 2;
      const uint8_t* above = row - row_bytes;
      for (size_t x = 0; x < row_bytes; ++x) target[1 + x] = static_cast<uint8_t>(row[x] - above[x]);
    }
    adler.update(target, row_bytes + 1);
  }
  return adler.value();
}

// 0x80 in every byte of x that is zero, nothing elsewhere (exact: no carries between bytes).
constexpr uint64_t zero_bytes(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  return ~(((x & kLow7) + kLow7) | x | kLow7);
}

[[maybe_unused]] uint64_t load64(const uint8_t* p) {  // the portable path (no SSE2)
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Whether a match of 3 bytes or more starts at `at` (a byte repeat or a pixel repeat).
bool match_starts(const uint8_t* data, size_t at, size_t n, size_t channels) {
  if (at + 3 > n) return false;
  const auto repeats = [&](size_t d) {
    return at >= d && data[at] == data[at - d] && data[at + 1] == data[at + 1 - d] && data[at + 2] == data[at + 2 - d];
  };
  return repeats(1) || repeats(channels);
}

// The literals before the next match that starts at `at` or later (greedy: the first position where
// a byte repeat or a pixel repeat of at least 3 bytes starts). Sixteen bytes (SSE2; eight without)
// are compared a step with the bytes one before and one pixel before: where no three equal bytes in
// a row start among the step's first fourteen (six), all of them are literals.
size_t literals_from(const uint8_t* data, size_t at, size_t n, size_t channels) {
  size_t i = at;
  for (; i < std::min(std::max(at, channels), n); ++i) {  // before a pixel lies behind
    if (match_starts(data, i, n, channels)) return i - at;
  }
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 14) {  // sixteen bytes a step, positions 0..13 checked
    const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const auto equal = [&](size_t d) {
      const auto m = static_cast<uint32_t>(
          _mm_movemask_epi8(_mm_cmpeq_epi8(here, _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i - d)))));
      return m & m >> 1 & m >> 2;
    };
    const uint32_t starts = (equal(1) | equal(channels)) & 0x3FFFu;
    if (starts) return i + std::countr_zero(starts) - at;
  }
#else
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kFirstSix = 0x0000808080808080ull;
    for (; i + 8 <= n; i += 6) {
      const uint64_t here = load64(data + i);
      const uint64_t byte_equal = zero_bytes(here ^ load64(data + i - 1));
      const uint64_t pixel_equal = zero_bytes(here ^ load64(data + i - channels));
      const uint64_t starts =
          ((byte_equal & byte_equal >> 8 & byte_equal >> 16) | (pixel_equal & pixel_equal >> 8 & pixel_equal >> 16)) &
          kFirstSix;
      if (starts) return i + std::countr_zero(starts) / 8 - at;
    }
  }
#endif
  for (; i < n; ++i) {
    if (match_starts(data, i, n, channels)) return i - at;
  }
  return n - at;
}

// Adds the bytes to four tables of counts in turn (one table stalls on every repeated byte).
void count_bytes(const uint8_t* bytes, size_t n, std::array<std::array<uint32_t, 256>, 4>& counts) {
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    ++counts[0][bytes[j]];
    ++counts[1][bytes[j + 1]];
    ++counts[2][bytes[j + 2]];
    ++counts[3][bytes[j + 3]];
  }
  for (; j < n; ++j) ++counts[0][bytes[j]];
}

// Literals and matches of `data`: at each position the longer of a byte repeat and a pixel repeat of
// `channels` bytes (the byte repeat on a tie) when one of at least 3 bytes starts there, else a
// literal. Counts the symbols of both codes as it goes.
void tokenize(const uint8_t* data, size_t n, size_t channels, std::vector<Token>& tokens,
              std::vector<uint32_t>& literal_freq, std::vector<uint32_t>& distance_freq) {
  tokens.clear();
  std::array<std::array<uint32_t, 256>, 4> byte_counts{};
  for (size_t i = 0; i < n;) {
    const size_t literals = literals_from(data, i, n, channels);
    count_bytes(data + i, literals, byte_counts);
    i += literals;
    Token token{static_cast<uint32_t>(literals), 0, false};
    if (i < n) {
      size_t length = i >= 1 ? repeat_length(data, i, n, 1) : 0;
      if (length < kMaxMatch && i >= channels) {
        const size_t pixel_repeat = repeat_length(data, i, n, channels);
        if (pixel_repeat > length) length = pixel_repeat, token.pixel = true;
      }
      token.length = static_cast<uint16_t>(length);
      ++literal_freq[kLengths.of[length].symbol];
      ++distance_freq[distance_code(token.pixel, channels)];
      i += length;
    }
    tokens.push_back(token);
  }
  for (int b = 0; b < 256; ++b)
    literal_freq[b] += byte_counts[0][b] + byte_counts[1][b] + byte_counts[2][b] + byte_counts[3][b];
}

// The code lengths of both codes as deflate sends them: symbols 0..15 (a length), 16 (the previous
// length 3-6 times), 17 (zero 3-10 times), 18 (zero 11-138 times), each with its extra bits.
struct LengthSymbol {
  uint8_t symbol, extra_count, extra_value;
};

std::vector<LengthSymbol> run_length(const std::vector<uint8_t>& lengths) {
  std::vector<LengthSymbol> out;
  for (size_t i = 0; i < lengths.size();) {
    const uint8_t l = lengths[i];
    size_t run = 1;
    while (i + run < lengths.size() && lengths[i + run] == l) ++run;
    i += run;
    if (l == 0) {
      for (; run >= 11; run -= std::min<size_t>(run, 138)) {
        out.push_back({18, 7, static_cast<uint8_t>(std::min<size_t>(run, 138) - 11)});
      }
      if (run >= 3) out.push_back({17, 3, static_cast<uint8_t>(run - 3)}), run = 0;
    } else {
      out.push_back({l, 0, 0});
      for (--run; run >= 3; run -= std::min<size_t>(run, 6)) {
        out.push_back({16, 2, static_cast<uint8_t>(std::min<size_t>(run, 6) - 3)});
      }
    }
    for (; run > 0; --run) out.push_back({l, 0, 0});
  }
  return out;
}

// One deflate block with dynamic Huffman codes (RFC 1951, 3.2.7) holding the tokens of `data`, not the
// last, then an empty stored block, so that what it writes ends on a byte boundary (zlib's sync flush)
// and any band's bytes can follow. Returns the end of what it wrote from `out` on.
const uint8_t* deflate_dynamic(const uint8_t* data, const std::vector<Token>& tokens,
                               std::vector<uint32_t> literal_freq, const std::vector<uint32_t>& distance_freq,
                               size_t channels, uint8_t* out) {
  BitWriter bits(out);
  literal_freq[kEndOfBlock] = 1;
  const Code literal = canonical(code_lengths(literal_freq, 15));
  const Code distance = canonical(code_lengths(distance_freq, 15));
  size_t literal_count = kLiteralSymbols, distance_count = kDistanceSymbols;
  while (literal_count > 257 && literal.lengths[literal_count - 1] == 0) --literal_count;
  while (distance_count > 1 && distance.lengths[distance_count - 1] == 0) --distance_count;
  std::vector<uint8_t> all(literal.lengths.begin(), literal.lengths.begin() + literal_count);
  all.insert(all.end(), distance.lengths.begin(), distance.lengths.begin() + distance_count);
  const std::vector<LengthSymbol> sent = run_length(all);
  std::vector<uint32_t> length_freq(19, 0);
  for (const LengthSymbol& s : sent) ++length_freq[s.symbol];
  const Code lengths_code = canonical(code_lengths(length_freq, 7));
  constexpr std::array<uint8_t, 19> kOrder = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  size_t order_count = 19;
  while (order_count > 4 && lengths_code.lengths[kOrder[order_count - 1]] == 0) --order_count;

  bits.write(0b100, 3);  // BFINAL = 0, BTYPE = 10 (dynamic codes)
  bits.write(static_cast<uint32_t>(literal_count - 257), 5);
  bits.write(static_cast<uint32_t>(distance_count - 1), 5);
  bits.write(static_cast<uint32_t>(order_count - 4), 4);
  for (size_t k = 0; k < order_count; ++k) bits.write(lengths_code.lengths[kOrder[k]], 3);
  for (const LengthSymbol& s : sent) {
    bits.write(lengths_code.codes[s.symbol], lengths_code.lengths[s.symbol]);
    if (s.extra_count) bits.write(s.extra_value, s.extra_count);
  }
  // Each byte's code and length in one word; three literals (45 bits at most) per flush.
  std::array<uint32_t, 256> byte_code{};
  for (int b = 0; b < 256; ++b) byte_code[b] = literal.codes[b] | static_cast<uint32_t>(literal.lengths[b]) << 16;
  const auto put_literal = [&](uint8_t byte) {
    bits.put(byte_code[byte] & 0xFFFF, static_cast<int>(byte_code[byte] >> 16));
  };
  // Each match length's code, extra bits and their bit count, in one word.
  std::array<uint64_t, kMaxMatch + 1> length_code{};
  for (size_t length = 3; length <= kMaxMatch; ++length) {
    const LengthCode& lc = kLengths.of[length];
    const int bits_of_code = literal.lengths[lc.symbol];
    length_code[length] = (literal.codes[lc.symbol] | static_cast<uint64_t>(lc.extra_value) << bits_of_code) |
                          static_cast<uint64_t>(bits_of_code + lc.extra_count) << 32;
  }
  const uint8_t* at = data;
  for (const Token& t : tokens) {
    const uint8_t* end = at + t.literals;
    for (; at + 3 <= end; at += 3) {
      put_literal(at[0]);
      put_literal(at[1]);
      put_literal(at[2]);
      bits.flush();
    }
    for (; at < end; ++at) put_literal(*at);
    bits.flush();
    if (t.length == 0) continue;
    const uint64_t length = length_code[t.length];
    const uint32_t d = distance_code(t.pixel, channels);
    bits.put(length & 0xFFFFFFFFu, static_cast<int>(length >> 32));  // 20 bits at most
    bits.write(distance.codes[d], distance.lengths[d]);
    at += t.length;
  }
  bits.write(literal.codes[kEndOfBlock], literal.lengths[kEndOfBlock]);
  bits.write(0b000, 3);  // BFINAL = 0, BTYPE = 00 (stored), then LEN = 0 and NLEN = ~0 from the next byte on
  uint8_t* end = bits.finish();
  const uint8_t empty_stored[4] = {0x00, 0x00, 0xFF, 0xFF};
  std::memcpy(end, empty_stored, 4);
  return end + 4;
}

void put32(std::vector<uint8_t>& out, uint32_t value) {
  const uint8_t bytes[4] = {static_cast<uint8_t>(value >> 24), static_cast<uint8_t>(value >> 16),
                            static_cast<uint8_t>(value >> 8), static_cast<uint8_t>(value)};
  out.insert(out.end(), bytes, bytes + 4);
}

// Starts a chunk; end_chunk() fills in its length and appends its CRC.
size_t begin_chunk(std::vector<uint8_t>& out, const char* type) {
  const size_t start = out.size();
  put32(out, 0);
  out.insert(out.end(), type, type + 4);
  return start;
}

void end_chunk(std::vector<uint8_t>& out, size_t start) {
  const size_t data_bytes = out.size() - start - 8;
  for (int k = 0; k < 4; ++k) out[start + k] = static_cast<uint8_t>(data_bytes >> (24 - 8 * k));
  put32(out, crc32(out.data() + start + 4, data_bytes + 4));
}

}  // namespace

struct PngBand {
  uint64_t shape;
  std::vector<uint8_t> raw, deflated;
  uint32_t adler, crc;  // of the filtered rows, and of the deflated bytes
};

namespace {

// A band's rows as its deflate block reads them: the raw bytes from the row above the band (none for
// the frame's first band) to the band's last row, and what else the block depends on.
struct BandKey {
  const uint8_t* raw;
  size_t raw_bytes;
  uint64_t shape;  // row bytes, channels, and whether the band starts the frame
};

// Deflate blocks of bands seen before, by their raw bytes (compared whole before one is taken), with
// the Adler-32 of their filtered rows; shared by the process's threads, at most kBandCacheBytes of
// raw and deflated bytes, the least recently used dropped first. A frame's unchanged parts (a game's
// background, an empty grid row) are copied rather than compressed again; the bytes do not depend on
// what is kept, only the time does.
class BandCache {
 public:
  using Band = PngBand;

  std::shared_ptr<const Band> find(uint64_t digest, const BandKey& key) {
    std::shared_ptr<const Band> band;
    {
      std::lock_guard lock(mutex_);
      const auto at = by_digest_.find(digest);
      if (at == by_digest_.end()) {
        ++misses_;
        return nullptr;
      }
      order_.splice(order_.begin(), order_, at->second);
      band = at->second->second;
    }
    const bool equal = band->shape == key.shape && band->raw.size() == key.raw_bytes &&
                       std::memcmp(band->raw.data(), key.raw, key.raw_bytes) == 0;
    ++(equal ? hits_ : misses_);
    return equal ? band : nullptr;
  }

  void keep(uint64_t digest, std::shared_ptr<const Band> band) {
    const size_t size = band->raw.size() + band->deflated.size();
    if (size > kBandCacheBytes / 4) return;
    std::lock_guard lock(mutex_);
    if (const auto at = by_digest_.find(digest); at != by_digest_.end()) drop(at->second);
    order_.emplace_front(digest, std::move(band));
    by_digest_[digest] = order_.begin();
    bytes_ += size;
    while (bytes_ > kBandCacheBytes) drop(std::prev(order_.end()));
  }

  void clear() {
    std::lock_guard lock(mutex_);
    order_.clear();
    by_digest_.clear();
    bytes_ = 0;
    hits_ = misses_ = 0;
  }

  PngBandCacheStats stats() {
    std::lock_guard lock(mutex_);
    return {hits_, misses_, bytes_, order_.size()};
  }

 private:
  static constexpr size_t kBandCacheBytes = size_t{48} << 20;
  using Order = std::list<std::pair<uint64_t, std::shared_ptr<const Band>>>;

  void drop(Order::iterator at) {
    bytes_ -= at->second->raw.size() + at->second->deflated.size();
    by_digest_.erase(at->first);
    order_.erase(at);
  }

  std::mutex mutex_;
  Order order_;  // most recently used first
  std::unordered_map<uint64_t, Order::iterator> by_digest_;
  size_t bytes_ = 0;
  std::atomic<uint64_t> hits_ = 0, misses_ = 0;
};

BandCache& band_cache() {
  static BandCache cache;
  return cache;
}

// Rows per band: a multiple of 16 (the tiles of cogsim's and the releases' pictures are multiples of
// 16 px), about 16 KiB of filtered rows or more, so a band's code tables stay a small share of it.
size_t rows_per_band(size_t row_bytes) {
  constexpr size_t kBandBytes = 16 << 10;
  const size_t sixteen_rows = 16 * (row_bytes + 1);
  return 16 * std::max<size_t>(1, (kBandBytes + sixteen_rows - 1) / sixteen_rows);
}

// The deflate block of a band (its matches within the band) and the Adler-32 of its filtered rows.
std::shared_ptr<const BandCache::Band> deflate_band(const BandKey& key, const uint8_t* rows, size_t row_bytes,
                                                    size_t count, bool frame_start, size_t channels) {
  thread_local std::vector<uint8_t> filtered;
  thread_local std::vector<Token> tokens;
  auto band = std::make_shared<BandCache::Band>();
  band->shape = key.shape;
  band->raw.assign(key.raw, key.raw + key.raw_bytes);
  band->adler = filter_band(rows, row_bytes, count, frame_start, filtered);
  std::vector<uint32_t> literal_freq(kLiteralSymbols, 0), distance_freq(kDistanceSymbols, 0);
  tokenize(filtered.data(), filtered.size(), channels, tokens, literal_freq, distance_freq);
  // At most 15 bits a literal and 35 a match (its length code, extra bits and distance code), plus
  // the code tables, the empty stored block and the last word: room enough whatever the codes come
  // out as, in a buffer kept by the thread (a fresh one per band costs more in page faults).
  thread_local std::unique_ptr<uint8_t[]> stream;  // never cleared: only what is written is read
  thread_local size_t stream_size = 0;
  const size_t room = filtered.size() * 2 + tokens.size() * 5 + 1024;
  if (stream_size < room) stream.reset(new uint8_t[room]), stream_size = room;
  const uint8_t* end =
      deflate_dynamic(filtered.data(), tokens, std::move(literal_freq), distance_freq, channels, stream.get());
  band->deflated.assign(static_cast<const uint8_t*>(stream.get()), end);
  band->crc = crc32(band->deflated.data(), band->deflated.size());
  return band;
}

// Whether any of the rows [first, end) is among `changed` (every row when it is not known).
bool may_have_changed(const std::vector<std::pair<int32_t, int32_t>>* changed, size_t first, size_t end) {
  if (changed == nullptr) return true;
  return std::any_of(changed->begin(), changed->end(), [&](const auto& rows) {
    return rows.first < rows.second && static_cast<size_t>(std::max(rows.first, 0)) < end &&
           first < static_cast<size_t>(std::max(rows.second, 0));
  });
}

// The band in the same place of the previous frame when its rows are the same bytes (compared unless
// `unchanged` says so), else null.
std::shared_ptr<const BandCache::Band> same_as_before(const PngBands* previous, size_t index, const BandKey& key,
                                                      bool unchanged) {
  if (previous == nullptr || index >= previous->of.size()) return nullptr;
  const auto& band = previous->of[index];
  const bool same_shape = band->shape == key.shape && band->raw.size() == key.raw_bytes;
  const bool equal = same_shape && (unchanged || std::memcmp(band->raw.data(), key.raw, key.raw_bytes) == 0);
  return equal ? band : nullptr;
}

}  // namespace

std::vector<uint8_t> encode_png(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels) {
  return encode_png_after(pixels, width, height, channels, nullptr, nullptr);
}

std::vector<uint8_t> encode_png_after(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels,
                                      const PngBands* previous, SharedPngBands* kept,
                                      const std::vector<std::pair<int32_t, int32_t>>* changed) {
  if (width <= 0 || height <= 0 || width > (1 << 24) || height > (1 << 24)) {
    throw std::invalid_argument("a PNG frame must be 1..16777216 px per side");
  }
  if (channels != 3 && channels != 4) throw std::invalid_argument("a PNG frame must be RGB or RGBA");
  const size_t row_bytes = static_cast<size_t>(width) * channels;
  // The bands first, so that the file is written into one buffer of its exact size.
  auto frame_bands = std::make_shared<PngBands>();
  auto& bands = frame_bands->of;
  size_t deflated_bytes = 0;
  uint32_t adler = 1;
  const size_t band_rows = rows_per_band(row_bytes), rows = static_cast<size_t>(height);
  bands.reserve((rows + band_rows - 1) / band_rows);
  for (size_t y = 0; y < rows; y += band_rows) {
    const size_t count = std::min(band_rows, rows - y);
    const uint8_t* band_rows_at = pixels + y * row_bytes;
    const BandKey key{y == 0 ? band_rows_at : band_rows_at - row_bytes, (count + (y > 0)) * row_bytes,
                      (static_cast<uint64_t>(row_bytes) * 8 + channels) * 2 + (y == 0)};
    const bool unchanged = !may_have_changed(changed, y == 0 ? 0 : y - 1, y + count);
    std::shared_ptr<const BandCache::Band> band = same_as_before(previous, bands.size(), key, unchanged);
    if (!band) {
      const uint64_t digest = digest64(key.raw, key.raw_bytes, key.shape);
      band = band_cache().find(digest, key);
      if (!band) {
        band = deflate_band(key, band_rows_at, row_bytes, count, y == 0, static_cast<size_t>(channels));
        band_cache().keep(digest, band);
      }
    }
    adler = adler32_combine(adler, band->adler, count * (row_bytes + 1));
    deflated_bytes += band->deflated.size();
    bands.push_back(std::move(band));
  }
  constexpr size_t kSignature = 8, kHeaderChunk = 25, kZlibFraming = 2 + 2 + 4, kChunkFraming = 12, kEndChunk = 12;
  std::vector<uint8_t> out;
  out.reserve(kSignature + kHeaderChunk + kChunkFraming + kZlibFraming + deflated_bytes + kEndChunk);
  const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  out.insert(out.end(), signature, signature + 8);
  size_t chunk = begin_chunk(out, "IHDR");
  put32(out, static_cast<uint32_t>(width));
  put32(out, static_cast<uint32_t>(height));
  const uint8_t colour_type = channels == 4 ? 6 : 2;    // RGBA or RGB
  const uint8_t format[5] = {8, colour_type, 0, 0, 0};  // 8 bits, deflate, adaptive filters, no interlace
  out.insert(out.end(), format, format + 5);
  end_chunk(out, chunk);
  chunk = begin_chunk(out, "IDAT");
  out.push_back(0x78);                              // zlib: deflate, 32 KiB window
  out.push_back(0x01);                              // no dictionary, check bits
  uint32_t crc = crc32(out.data() + chunk + 4, 6);  // the chunk's CRC covers its type and data
  for (const auto& band : bands) {
    out.insert(out.end(), band->deflated.begin(), band->deflated.end());
    crc = crc32_combine(crc, band->crc, band->deflated.size());
  }
  if (kept != nullptr) *kept = std::move(frame_bands);
  const size_t tail = out.size();
  out.push_back(0x03);  // the last block: fixed codes, nothing but its end (zlib's Z_FINISH after a flush)
  out.push_back(0x00);
  put32(out, adler);
  crc = crc32(out.data() + tail, out.size() - tail, crc);
  const size_t data_bytes = out.size() - chunk - 8;
  for (int k = 0; k < 4; ++k) out[chunk + k] = static_cast<uint8_t>(data_bytes >> (24 - 8 * k));
  put32(out, crc);
  end_chunk(out, begin_chunk(out, "IEND"));
  return out;
}

void clear_png_band_cache() { band_cache().clear(); }

PngBandCacheStats png_band_cache_stats() { return band_cache().stats(); }

}  // namespace cogsim::render
