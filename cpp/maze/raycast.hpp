// The released RNG-Bench maze's first-person view (InternLM/RNGBench, 2_3d_maze/game.py,
// MazeGame3D._build_3d_scene), drawn to the same bytes.
//
// The release's world is the (2n+1)-square block grid of its maze: cell (r, c) is block (2r+1, 2c+1),
// the blocks between cells are walls or passages, and the corner blocks are walls. The player stands
// at the centre of its block, (col + 0.5, row + 0.5), facing one of four headings. Each of the 640
// columns casts one ray by DDA through the blocks; the first wall block hit within the fog cut-off
// paints a vertical strip of flat colour, darkened linearly with distance. Above and below every
// strip are the ceiling and floor gradients.
//
// Why the bytes are the release's. The release computes in Python floats (IEEE binary64) and NumPy
// float32; this file performs the same operations in the same order on the same types, and is built
// with -ffp-contract=off so no multiply-add is fused. Its only transcendental values (the heading's
// cos and sin, tan of half the field of view) are the binary64 results of Python's math module,
// written here bit for bit (release_camera() returns them; a test compares them with math.cos etc.).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cogsim::maze {

inline constexpr int kReleaseViewWidth = 640, kReleaseViewHeight = 360;

// The camera of a heading (0..3 = north, east, south, west): direction and the camera plane.
struct ReleaseCamera {
  double dir_x, dir_y, plane_x, plane_y;
};
ReleaseCamera release_camera(int heading);

// One view: the block grid (side x side bytes, nonzero = wall), the player's block and heading, the
// fog distance in cells. With `goal_walls`, wall blocks beside the goal block take the release's goal
// colour (its code compares the hit block with the goal block, which is never a wall, so the release
// itself never shows it: cogsim's option show_goal).
struct ReleaseView {
  const uint8_t* grid = nullptr;
  int32_t side = 0;
  int32_t row = 0, col = 0;  // the player's block
  int32_t heading = 0;
  int32_t vision_range = 0;
  bool goal_walls = false;
  int32_t goal_row = 0, goal_col = 0;  // the goal's block
};

// Draws the 640 x 360 view into rgb (3 bytes a pixel, rows `stride` bytes apart). Throws
// std::invalid_argument for a pose outside the grid, a heading outside 0..3 or a vision range < 1.
void draw_release_view(const ReleaseView& view, uint8_t* rgb, ptrdiff_t stride);

}  // namespace cogsim::maze
