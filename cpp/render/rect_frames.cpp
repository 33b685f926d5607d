#include "render/rect_frames.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "common/parallel.hpp"

namespace cogsim::render {

void check_rects(const RectFrames& spec) {
  if (spec.width <= 0 || spec.height <= 0) throw std::invalid_argument("frame size must be positive");
  for (size_t k = 0; k < spec.rects.size(); ++k) {
    const SlotRect& r = spec.rects[k];
    if (r.slot < 0 || r.slot >= spec.slots) {
      throw std::invalid_argument("rect " + std::to_string(k) + ": slot must be in [0, " + std::to_string(spec.slots) +
                                  ")");
    }
    if (r.x0 < 0 || r.y0 < 0 || r.x1 > spec.width || r.y1 > spec.height || r.x0 > r.x1 || r.y0 > r.y1) {
      throw std::invalid_argument("rect " + std::to_string(k) + " must lie inside the " + std::to_string(spec.width) +
                                  " x " + std::to_string(spec.height) + " frame");
    }
  }
}

namespace {

// Fills one rect: its first row pixel by pixel, the others as copies of the first.
void fill(uint8_t* frame, int32_t width, const SlotRect& r, const uint8_t* rgb) {
  if (r.x0 == r.x1 || r.y0 == r.y1) return;
  const size_t stride = static_cast<size_t>(width) * 3, span = static_cast<size_t>(r.x1 - r.x0) * 3;
  uint8_t* first = frame + r.y0 * stride + static_cast<size_t>(r.x0) * 3;
  for (size_t x = 0; x < span; x += 3) std::memcpy(first + x, rgb, 3);
  for (int32_t y = r.y0 + 1; y < r.y1; ++y) std::memcpy(first + (y - r.y0) * stride, first, span);
}

}  // namespace

void paint_rect_frames(const RectFrames& spec, const uint8_t* colours, size_t n, uint8_t* out, unsigned threads) {
  const size_t frame_bytes = static_cast<size_t>(spec.width) * spec.height * 3;
  parallel_for(n, threads, [&](size_t i) {
    uint8_t* frame = out + i * frame_bytes;
    std::memcpy(frame, spec.frame_template, frame_bytes);
    const uint8_t* ids = colours + i * spec.slots;
    for (const SlotRect& r : spec.rects) fill(frame, spec.width, r, spec.palette + 3 * ids[r.slot]);
  });
}

}  // namespace cogsim::render
