// The CPU compositor of 2D frames: the renderer's draw items (rows of the quad pipeline:
// python/cogsim/render/_canvas.py) laid over a frame's base, each as a stamp, the pixels the GL path
// draws for that item alone, kept once and reused wherever the item appears again.
//
// Why the frames equal the GL path's, bit for bit. The quad shaders compute an item's pixels from
// positions relative to the item (shaders/quad.vert), and draw items keep their corners on a 1/256 px
// grid, so an item moved by whole pixels gives the same premultiplied RGBA: a stamp drawn once over
// transparent black is the item's colour anywhere (stamps are moved by even numbers of pixels, so
// the 2 x 2 pixel groups that give shaders their derivatives stay aligned). Over a frame the GL
// blends each item with ONE, ONE_MINUS_SRC_ALPHA on 8-bit channels; compose() does that arithmetic
// exactly as Mesa's llvmpipe does (its normalised 8-bit multiply, then a saturating add), item by item
// in drawing order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cogsim::render {

constexpr int kRowFloats = 20;  // rect 4, uv 4, colour 4, colour2 4, (kind, p0, p1, frame) 4
constexpr int kFrameColumn = 19;

// Frame pixels [x0, x1) x [y0, y1).
struct Window {
  int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x0 >= x1 || y0 >= y1; }
  int32_t width() const { return x1 - x0; }
  int32_t height() const { return y1 - y0; }
};

// Where a draw item lands in a frame of width x height: the pixels it may touch, clipped to the
// frame (empty if none), and the even whole-pixel shift from its stamp's coordinates to the frame's.
struct Placement {
  Window window;
  int32_t dx = 0, dy = 0;
};

// Throws std::invalid_argument for a rect that is not finite or lies further than 2^20 px out.
Placement place(const float* row, int32_t width, int32_t height);

class Compositor {
 public:
  explicit Compositor(size_t max_bytes) : max_bytes_(max_bytes) {}

  // A frame base (RGBA, width x height, as the GL path starts a frame from it); returns its id.
  int32_t add_base(const uint8_t* rgba, int32_t width, int32_t height);

  // The stamp of `row` in frames of width x height: `rgba` holds the pixels of its placement's
  // window (window height x width x 4), drawn by the GL path over transparent black.
  void add_stamp(const float* row, int32_t width, int32_t height, const uint8_t* rgba);

  // Frames 0..N-1 (RGB, height x width x 3 at frames[i]) from rows in frame order, each frame
  // starting from base_ids[i] (-1: opaque black, as a GL pass clears). Returns the rows whose stamps
  // are missing (one per stamp) and then writes nothing; an empty result means done.
  std::vector<int64_t> compose(const float* rows, size_t n_rows, const std::vector<uint8_t*>& frames, int32_t width,
                               int32_t height, const int32_t* base_ids, unsigned threads);

  size_t stamp_count() const { return stamps_.size(); }
  size_t stamp_bytes() const { return bytes_; }

 private:
  struct Key {
    // The row's floats but its frame, its rect moved by -(dx, dy), then its window relative to (dx, dy).
    std::array<uint32_t, 23> bits;
    bool operator==(const Key& other) const { return bits == other.bits; }
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  // Columns [first, last) of a stamp row, opaque (copied) or blended; columns of no run are
  // transparent (they leave the frame as it is).
  struct Run {
    int32_t first, last;
    bool opaque;
  };
  struct Stamp {
    int32_t width = 0, height = 0;
    std::vector<uint8_t> colour;     // premultiplied RGB, 3 bytes per pixel
    std::vector<uint8_t> keep;       // 255 - alpha, once per colour byte
    std::vector<Run> runs;           // row by row
    std::vector<uint32_t> row_runs;  // row y's runs are runs[row_runs[y], row_runs[y + 1])
    uint64_t used = 0;               // the compose() call that last read it
  };
  struct Base {
    int32_t width, height;
    std::vector<uint8_t> rgb;
  };

  static Key key_of(const float* row, const Placement& placement);
  static size_t size_of(const Stamp& stamp);
  void evict_unused();

  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t generation_ = 0;
  std::unordered_map<Key, Stamp, KeyHash> stamps_;
  std::vector<Base> bases_;
  std::mutex mutex_;
};

// dst = sat(colour + dst * keep / 255), the product rounded as llvmpipe's 8-bit blend rounds it.
void blend(uint8_t* dst, const uint8_t* colour, const uint8_t* keep, size_t bytes);

}  // namespace cogsim::render
