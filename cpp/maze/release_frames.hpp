// Frames of the released RNG-Bench maze (2_3d_maze/game.py): the raycast view (raycast.hpp) and,
// over it, opaque stamps: the HUD strip and its text, the minimap's cells, walls, player and border,
// the 2D patch's shapes.
//
// Why stamps give the release's bytes. Every shape the release draws with PIL's ImageDraw on an RGB
// image (rectangles, wide lines, ellipses) writes its fill colour into the pixels it covers, with no
// blending; the text is blended into the HUD's uniform background, and no two pieces of text touch
// the same pixel (the caller checks, and draws with PIL where they would). So a frame is the view,
// then each stamp's pixels copied where its mask is set, in the release's drawing order. The stamps
// themselves are drawn once by PIL (python/cogsim/benchmarks/rngbench/maze/look.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <shared_mutex>
#include <vector>

namespace cogsim::maze {

// One frame of a batch: the 3D view of scene `scene` (-1: none, the frame starts black) and then the
// stamps of ops [first_op, last_op).
struct ReleaseFrameSpec {
  int32_t scene = -1;
  int32_t row = 0, col = 0, heading = 0, vision_range = 0;  // the player's block and heading
  bool goal_walls = false;
  int32_t goal_row = 0, goal_col = 0;
  size_t first_op = 0, last_op = 0;
};

// A stamp placed in a frame: its top-left corner at (x, y).
struct StampOp {
  int32_t stamp = 0, x = 0, y = 0;
};

// The block grids of a batch's scenes: grid i is sides[i]^2 bytes (nonzero = wall).
struct SceneGrids {
  std::vector<const uint8_t*> grids;
  std::vector<int32_t> sides;
};

class ReleaseFrames {
 public:
  // Adds a stamp: `rgb` (height x width x 3) shown where `mask` (height x width) is nonzero. Returns its id.
  int32_t add_stamp(const uint8_t* rgb, const uint8_t* mask, int32_t width, int32_t height);

  // Draws frames[i] (height x width x 3) from specs[i]. A frame with a scene must be 640 wide and at
  // least 360 high. Throws std::invalid_argument for a bad spec or op (naming the frame); then the
  // frames' contents are unspecified.
  void draw(const SceneGrids& scenes, const std::vector<ReleaseFrameSpec>& specs, const std::vector<StampOp>& ops,
            const std::vector<uint8_t*>& frames, int32_t width, int32_t height, unsigned threads) const;

  size_t stamp_count() const;

 private:
  struct Run {
    int32_t row, first, last;  // columns [first, last) of stamp row `row`
  };
  struct Stamp {
    int32_t width = 0, height = 0;
    std::vector<uint8_t> rgb;
    std::vector<Run> runs;
  };

  void paint(const Stamp& stamp, int32_t x, int32_t y, uint8_t* frame, int32_t width, int32_t height) const;

  std::vector<Stamp> stamps_;
  mutable std::shared_mutex mutex_;  // add_stamp writes stamps_ while no draw reads them
};

}  // namespace cogsim::maze
