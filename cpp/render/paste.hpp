// Pillow's paste of an RGBA image through its own alpha (Image.paste(im, box, mask=im)), exactly:
// every band, alpha included, becomes DIV255(dst * (255 - a) + src * a) with Pillow's rounding
// DIV255(x) = (x + 128 + ((x + 128) >> 8)) >> 8 (the BLEND of its Paste.c; checked against Pillow
// for all 2^24 (dst, src, a) triples in tests/test_kidgym_release_look.py). Release frames of KidGym
// are made of such pastes and of plain copies (numpy slice assignment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cogsim::render {

inline uint8_t pillow_blend(uint32_t dst, uint32_t src, uint32_t alpha) {
  const uint32_t x = dst * (255 - alpha) + src * alpha + 128;
  return static_cast<uint8_t>(((x >> 8) + x) >> 8);
}

// An RGBA image in memory: rows of width * 4 bytes, `stride` bytes apart.
struct RgbaView {
  const uint8_t* pixels;
  int width;
  int height;
  size_t stride;
};

// Pastes `src` through its alpha onto `dst` (rows of dst_stride bytes) at (x, y); the caller keeps
// it inside the destination.
inline void paste_blend(uint8_t* dst, size_t dst_stride, const RgbaView& src, int x, int y) {
  for (int row = 0; row < src.height; ++row) {
    const uint8_t* s = src.pixels + row * src.stride;
    uint8_t* d = dst + (y + row) * dst_stride + static_cast<size_t>(x) * 4;
    for (int col = 0; col < src.width; ++col, s += 4, d += 4) {
      const uint32_t a = s[3];
      if (a == 0) continue;
      if (a == 255) {
        std::memcpy(d, s, 4);
        continue;
      }
      d[0] = pillow_blend(d[0], s[0], a);
      d[1] = pillow_blend(d[1], s[1], a);
      d[2] = pillow_blend(d[2], s[2], a);
      d[3] = pillow_blend(d[3], s[3], a);
    }
  }
}

// Copies `src` onto `dst` at (x, y), alpha included (numpy's slice assignment).
inline void paste_copy(uint8_t* dst, size_t dst_stride, const RgbaView& src, int x, int y) {
  for (int row = 0; row < src.height; ++row)
    std::memcpy(dst + (y + row) * dst_stride + static_cast<size_t>(x) * 4, src.pixels + row * src.stride,
                static_cast<size_t>(src.width) * 4);
}

}  // namespace cogsim::render
