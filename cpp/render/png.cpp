#include "render/png.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace cogsim::render {

namespace {

constexpr uint32_t kAdlerModulus = 65521;
constexpr size_t kMaxMatch = 258;

struct CrcTable {
  std::array<uint32_t, 256> entries{};
  constexpr CrcTable() {
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[n] = c;
    }
  }
};
constexpr CrcTable kCrc;

uint32_t crc32(const uint8_t* bytes, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = kCrc.entries[(c ^ bytes[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

constexpr uint32_t reversed(uint32_t code, int length) {
  uint32_t out = 0;
  for (int i = 0; i < length; ++i) out |= ((code >> i) & 1u) << (length - 1 - i);
  return out;
}

// Bits as deflate writes them (least significant first); Huffman codes are stored pre-reversed.
struct Bits {
  uint32_t value;
  uint8_t count;
};

// The fixed Huffman code (RFC 1951, 3.2.6) of literal/length symbols 0..287.
constexpr Bits fixed_literal(uint32_t symbol) {
  if (symbol < 144) return {reversed(0x30 + symbol, 8), 8};
  if (symbol < 256) return {reversed(0x190 + symbol - 144, 9), 9};
  if (symbol < 280) return {reversed(symbol - 256, 7), 7};
  return {reversed(0xC0 + symbol - 280, 8), 8};
}

struct Tables {
  std::array<Bits, 288> literal{};
  // A match of length 3..258 at distance 1 or 3: length symbol, its extra bits and the distance code.
  std::array<std::array<Bits, kMaxMatch + 1>, 2> match{};
  constexpr Tables() {
    for (uint32_t s = 0; s < 288; ++s) literal[s] = fixed_literal(s);
    constexpr std::array<uint16_t, 29> base = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    constexpr std::array<uint8_t, 29> extra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (uint32_t length = 3; length <= kMaxMatch; ++length) {
      uint32_t k = 28;
      while (base[k] > length) --k;
      const Bits code = fixed_literal(257 + k);
      for (int d = 0; d < 2; ++d) {
        const uint32_t distance_code = d == 0 ? 0 : 2;  // distances 1 and 3: codes 0 and 2, no extra bits
        const uint32_t bits =
            code.value | ((length - base[k]) << code.count) | (reversed(distance_code, 5) << (code.count + extra[k]));
        match[d][length] = {bits, static_cast<uint8_t>(code.count + extra[k] + 5)};
      }
    }
  }
};
constexpr Tables kTables;

class BitWriter {
 public:
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}
  void put(Bits bits) {
    pending_ |= static_cast<uint64_t>(bits.value) << count_;
    count_ += bits.count;
    if (count_ >= 32) {
      const uint8_t word[4] = {static_cast<uint8_t>(pending_), static_cast<uint8_t>(pending_ >> 8),
                               static_cast<uint8_t>(pending_ >> 16), static_cast<uint8_t>(pending_ >> 24)};
      out_.insert(out_.end(), word, word + 4);
      pending_ >>= 32;
      count_ -= 32;
    }
  }
  void finish() {
    for (; count_ > 0; count_ = count_ > 8 ? count_ - 8 : 0, pending_ >>= 8) {
      out_.push_back(static_cast<uint8_t>(pending_));
    }
  }

 private:
  std::vector<uint8_t>& out_;
  uint64_t pending_ = 0;
  int count_ = 0;
};

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

// The filtered rows: filter byte 0 (None) then row 0, filter byte 2 (Up) then each later row's
// difference from the row above, byte by byte modulo 256.
void filter_rows(const uint8_t* rgb, size_t row_bytes, int32_t height, std::vector<uint8_t>& out) {
  out.resize((row_bytes + 1) * static_cast<size_t>(height));
  uint8_t* target = out.data();
  for (int32_t y = 0; y < height; ++y, target += row_bytes + 1) {
    const uint8_t* row = rgb + static_cast<size_t>(y) * row_bytes;
    if (y == 0) {
      target[0] = 0;
      std::memcpy(target + 1, row, row_bytes);
      continue;
    }
    target[0] = 2;
    const uint8_t* above = row - row_bytes;
    for (size_t x = 0; x < row_bytes; ++x) target[1 + x] = static_cast<uint8_t>(row[x] - above[x]);
  }
}

// One fixed-Huffman deflate block of `data`; returns its Adler-32.
uint32_t deflate_fixed(const uint8_t* data, size_t n, BitWriter& bits) {
  bits.put({0b011, 3});  // BFINAL = 1, BTYPE = 01 (fixed codes)
  uint64_t s1 = 1, s2 = 0;
  size_t unreduced = 0;
  for (size_t i = 0; i < n;) {
    size_t length = i >= 1 ? repeat_length(data, i, n, 1) : 0;
    int kind = 0;
    if (length < kMaxMatch && i >= 3) {
      const size_t pixel_repeat = repeat_length(data, i, n, 3);
      if (pixel_repeat > length) length = pixel_repeat, kind = 1;
    }
    if (length < 3) {
      bits.put(kTables.literal[data[i]]);
      s1 += data[i];
      s2 += s1;
      ++i;
      if (++unreduced == 4096) s1 %= kAdlerModulus, s2 %= kAdlerModulus, unreduced = 0;
      continue;
    }
    bits.put(kTables.match[kind][length]);
    if (kind == 0) {  // `length` copies of the byte before: closed form
      const uint64_t v = data[i - 1];
      s2 += length * s1 + v * length * (length + 1) / 2;
      s1 += v * length;
    } else {
      for (size_t j = i; j < i + length; ++j) s1 += data[j], s2 += s1;
    }
    s1 %= kAdlerModulus, s2 %= kAdlerModulus, unreduced = 0;
    i += length;
  }
  bits.put(kTables.literal[256]);  // end of block
  bits.finish();
  return static_cast<uint32_t>((s2 % kAdlerModulus) << 16 | (s1 % kAdlerModulus));
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

std::vector<uint8_t> encode_png(const uint8_t* rgb, int32_t width, int32_t height) {
  if (width <= 0 || height <= 0 || width > (1 << 24) || height > (1 << 24)) {
    throw std::invalid_argument("a PNG frame must be 1..16777216 px per side");
  }
  thread_local std::vector<uint8_t> filtered;
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  filter_rows(rgb, row_bytes, height, filtered);
  std::vector<uint8_t> out;
  out.reserve(filtered.size() / 16 + 1024);
  const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  out.insert(out.end(), signature, signature + 8);
  size_t chunk = begin_chunk(out, "IHDR");
  put32(out, static_cast<uint32_t>(width));
  put32(out, static_cast<uint32_t>(height));
  const uint8_t format[5] = {8, 2, 0, 0, 0};  // 8 bits, RGB, deflate, adaptive filters, no interlace
  out.insert(out.end(), format, format + 5);
  end_chunk(out, chunk);
  chunk = begin_chunk(out, "IDAT");
  out.push_back(0x78);  // zlib: deflate, 32 KiB window
  out.push_back(0x01);  // no dictionary, check bits
  BitWriter bits(out);
  put32(out, deflate_fixed(filtered.data(), filtered.size(), bits));
  end_chunk(out, chunk);
  end_chunk(out, begin_chunk(out, "IEND"));
  return out;
}

}  // namespace cogsim::render
