#include "render/png.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <queue>
#include <stdexcept>

namespace cogsim::render {

namespace {

constexpr uint32_t kAdlerModulus = 65521;
constexpr size_t kMaxMatch = 258;
constexpr int kLiteralSymbols = 286;  // 0..255 bytes, 256 end of block, 257..285 match lengths
constexpr int kDistanceSymbols = 30;
constexpr int kEndOfBlock = 256;

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

// A literal byte (length 0) or a match of `length` at distance 1 (value 0) or one pixel, 3 or 4
// bytes (value 1).
struct Token {
  uint16_t value;
  uint16_t length;
};

// The distance symbol of a match (distances 1..4 are symbols 0..3, no extra bits).
constexpr uint32_t distance_code(uint16_t value, size_t channels) {
  return value == 0 ? 0 : static_cast<uint32_t>(channels - 1);
}

class BitWriter {
 public:
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}
  // Up to 16 bits, least significant first (as deflate packs them).
  void put(uint32_t value, int count) {
    pending_ |= static_cast<uint64_t>(value) << count_;
    count_ += count;
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

// A prefix code: per symbol its length in bits and its code, bit-reversed for the LSB-first stream.
struct Code {
  std::vector<uint8_t> lengths;
  std::vector<uint16_t> codes;
};

// Huffman code lengths for `freq`, none longer than max_bits (miniz's rebalancing of an optimal
// tree), each used symbol at least 1 bit; at least two symbols get a length so that the code is
// complete. Ties are broken by symbol number, so the lengths are the same everywhere.
std::vector<uint8_t> code_lengths(std::vector<uint32_t> freq, int max_bits) {
  const int n = static_cast<int>(freq.size());
  for (int s = 0, used = static_cast<int>(std::count_if(freq.begin(), freq.end(), [](uint32_t f) { return f; }));
       used < 2 && s < n; ++s) {
    if (freq[s] == 0) freq[s] = 1, ++used;
  }
  struct Node {
    uint64_t weight;
    int order;  // ties: earlier first
    int index;
    bool operator>(const Node& other) const {
      return weight != other.weight ? weight > other.weight : order > other.order;
    }
  };
  std::priority_queue<Node, std::vector<Node>, std::greater<>> heap;
  std::vector<int> parent(2 * n, -1);
  for (int s = 0; s < n; ++s) {
    if (freq[s]) heap.push({freq[s], s, s});
  }
  int next = n, order = n;
  while (heap.size() > 1) {
    const Node a = heap.top();
    heap.pop();
    const Node b = heap.top();
    heap.pop();
    parent[a.index] = parent[b.index] = next;
    heap.push({a.weight + b.weight, order++, next++});
  }
  // Depth of every leaf, counted per length (lengths past max_bits folded onto it).
  std::vector<int> count(64, 0);
  std::vector<int> symbols;
  for (int s = 0; s < n; ++s) {
    if (!freq[s]) continue;
    int depth = 0;
    for (int p = parent[s]; p != -1; p = parent[p]) ++depth;
    ++count[std::min(depth, max_bits)];
    symbols.push_back(s);
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
  // The most frequent symbols get the shortest lengths.
  std::stable_sort(symbols.begin(), symbols.end(), [&](int a, int b) { return freq[a] > freq[b]; });
  std::vector<uint8_t> lengths(n, 0);
  size_t at = 0;
  for (int l = 1; l <= max_bits; ++l) {
    for (int k = 0; k < count[l]; ++k) lengths[symbols[at++]] = static_cast<uint8_t>(l);
  }
  return lengths;
}

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
    uint32_t rev = 0;
    for (int i = 0; i < l; ++i) rev |= ((code >> i) & 1u) << (l - 1 - i);
    out.codes[s] = static_cast<uint16_t>(rev);
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

// Literals and matches of `data` (longest of a byte repeat and a pixel repeat of `channels` bytes,
// at least 3 bytes); returns the Adler-32 of `data`, runs of one byte in closed form.
uint32_t tokenize(const uint8_t* data, size_t n, size_t channels, std::vector<Token>& tokens) {
  tokens.clear();
  uint64_t s1 = 1, s2 = 0;
  size_t unreduced = 0;
  for (size_t i = 0; i < n;) {
    size_t length = i >= 1 ? repeat_length(data, i, n, 1) : 0;
    uint16_t kind = 0;
    if (length < kMaxMatch && i >= channels) {
      const size_t pixel_repeat = repeat_length(data, i, n, channels);
      if (pixel_repeat > length) length = pixel_repeat, kind = 1;
    }
    if (length < 3) {
      tokens.push_back({data[i], 0});
      s1 += data[i];
      s2 += s1;
      ++i;
      if (++unreduced == 4096) s1 %= kAdlerModulus, s2 %= kAdlerModulus, unreduced = 0;
      continue;
    }
    tokens.push_back({kind, static_cast<uint16_t>(length)});
    if (kind == 0) {  // `length` copies of the byte before
      const uint64_t v = data[i - 1];
      s2 += length * s1 + v * length * (length + 1) / 2;
      s1 += v * length;
    } else {
      for (size_t j = i; j < i + length; ++j) s1 += data[j], s2 += s1;
    }
    s1 %= kAdlerModulus, s2 %= kAdlerModulus, unreduced = 0;
    i += length;
  }
  return static_cast<uint32_t>((s2 % kAdlerModulus) << 16 | (s1 % kAdlerModulus));
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

// One deflate block with dynamic Huffman codes (RFC 1951, 3.2.7) holding the tokens.
void deflate_dynamic(const std::vector<Token>& tokens, size_t channels, BitWriter& bits) {
  std::vector<uint32_t> literal_freq(kLiteralSymbols, 0), distance_freq(kDistanceSymbols, 0);
  for (const Token& t : tokens) {
    if (t.length == 0) {
      ++literal_freq[t.value];
    } else {
      ++literal_freq[kLengths.of[t.length].symbol];
      ++distance_freq[distance_code(t.value, channels)];
    }
  }
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

  bits.put(0b101, 3);  // BFINAL = 1, BTYPE = 10 (dynamic codes)
  bits.put(static_cast<uint32_t>(literal_count - 257), 5);
  bits.put(static_cast<uint32_t>(distance_count - 1), 5);
  bits.put(static_cast<uint32_t>(order_count - 4), 4);
  for (size_t k = 0; k < order_count; ++k) bits.put(lengths_code.lengths[kOrder[k]], 3);
  for (const LengthSymbol& s : sent) {
    bits.put(lengths_code.codes[s.symbol], lengths_code.lengths[s.symbol]);
    if (s.extra_count) bits.put(s.extra_value, s.extra_count);
  }
  for (const Token& t : tokens) {
    if (t.length == 0) {
      bits.put(literal.codes[t.value], literal.lengths[t.value]);
      continue;
    }
    const LengthCode& lc = kLengths.of[t.length];
    bits.put(literal.codes[lc.symbol], literal.lengths[lc.symbol]);
    if (lc.extra_count) bits.put(lc.extra_value, lc.extra_count);
    const uint32_t d = distance_code(t.value, channels);
    bits.put(distance.codes[d], distance.lengths[d]);
  }
  bits.put(literal.codes[kEndOfBlock], literal.lengths[kEndOfBlock]);
  bits.finish();
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

std::vector<uint8_t> encode_png(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels) {
  if (width <= 0 || height <= 0 || width > (1 << 24) || height > (1 << 24)) {
    throw std::invalid_argument("a PNG frame must be 1..16777216 px per side");
  }
  if (channels != 3 && channels != 4) throw std::invalid_argument("a PNG frame must be RGB or RGBA");
  thread_local std::vector<uint8_t> filtered;
  thread_local std::vector<Token> tokens;
  const size_t row_bytes = static_cast<size_t>(width) * channels;
  filter_rows(pixels, row_bytes, height, filtered);
  const uint32_t adler = tokenize(filtered.data(), filtered.size(), static_cast<size_t>(channels), tokens);
  std::vector<uint8_t> out;
  out.reserve(tokens.size() + 1024);
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
  out.push_back(0x78);  // zlib: deflate, 32 KiB window
  out.push_back(0x01);  // no dictionary, check bits
  BitWriter bits(out);
  deflate_dynamic(tokens, static_cast<size_t>(channels), bits);
  put32(out, adler);
  end_chunk(out, chunk);
  end_chunk(out, begin_chunk(out, "IEND"));
  return out;
}

}  // namespace cogsim::render
