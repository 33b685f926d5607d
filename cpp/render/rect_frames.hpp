// Frames made of a fixed template and flat-colour rectangles: each frame is the template with a
// list of rectangles filled, rectangle k in the colour its frame gives slot k. This is all a picture
// is when its only state-dependent pixels are solid areas whose places never change (Cube Bench's
// release net, python/cogsim/benchmarks/cubebench/look.py: 54 sticker rectangles over a
// frame that matplotlib drew once). Plain copies and fills, so the bytes are the same on every
// machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cogsim::render {

// Frame pixels [x0, x1) x [y0, y1), filled with the colour of `slot`.
struct SlotRect {
  int32_t slot, y0, y1, x0, x1;
};

struct RectFrames {
  const uint8_t* frame_template;  // height x width x 3 RGB
  int32_t width, height;
  std::vector<SlotRect> rects;  // in painting order (a later rect covers an earlier one)
  const uint8_t* palette;       // RGB triples
  int32_t slots;                // colour ids per frame
};

// Throws std::invalid_argument for a rect outside the frame or with a slot outside [0, slots).
void check_rects(const RectFrames& spec);

// Writes frames 0..n-1 (height x width x 3 each, consecutive at out) for colour ids
// colours[i * slots + slot] (indices into the palette, which the caller has checked), over threads.
void paint_rect_frames(const RectFrames& spec, const uint8_t* colours, size_t n, uint8_t* out, unsigned threads);

}  // namespace cogsim::render
