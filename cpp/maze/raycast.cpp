#include "maze/raycast.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace cogsim::maze {

namespace {

constexpr int W = kReleaseViewWidth, H = kReleaseViewHeight;

// math.cos / math.sin of math.radians(angle) for the release's angles N 270, E 0, S 90, W 180 (degrees,
// clockwise from east, rows growing southwards), and math.tan(math.radians(66 / 2)).
constexpr double kDirX[4] = {-0x1.a79394c9e8a0ap-53, 1.0, 0x1.1a62633145c07p-54, -1.0};
constexpr double kDirY[4] = {-1.0, 0.0, 1.0, 0x1.1a62633145c07p-53};
constexpr double kHalfFovTan = 0x1.4c7f26ed1d60fp-1;

// The release's colours (game.py): wall faces crossed along x (side 0) and along y (side 1), the goal's.
constexpr float kWallX[3] = {160, 165, 200}, kWallY[3] = {110, 115, 150}, kGoalWall[3] = {200, 120, 10};
constexpr float kCeilingTop[3] = {8, 10, 22}, kCeilingBottom[3] = {22, 28, 50};
constexpr float kFloorTop[3] = {18, 15, 12}, kFloorBottom[3] = {55, 48, 38};

// The ceiling and floor rows, in float32 as NumPy computes them: t = y / 179, colour a * (1 - t) + b * t,
// truncated to uint8.
using Background = std::array<std::array<uint8_t, 3>, H>;

Background make_background() {
  Background rows{};
  const float span = static_cast<float>(H / 2 - 1);
  for (int y = 0; y < H / 2; ++y) {
    const float t = static_cast<float>(y) / span;
    const float t_rev = 1.0f - t;
    for (int i = 0; i < 3; ++i) rows[y][i] = static_cast<uint8_t>(kCeilingBottom[i] * t_rev + kCeilingTop[i] * t);
  }
  for (int y = H / 2; y < H; ++y) {
    const float t = (static_cast<float>(y) - static_cast<float>(H / 2)) / span;
    for (int i = 0; i < 3; ++i) rows[y][i] = static_cast<uint8_t>(kFloorTop[i] * (1.0f - t) + kFloorBottom[i] * t);
  }
  return rows;
}

const Background& background() {
  static const Background rows = make_background();
  return rows;
}

bool is_goal_neighbour(const ReleaseView& v, int32_t row, int32_t col) {
  return std::abs(row - v.goal_row) + std::abs(col - v.goal_col) == 1;
}

// The wall strip of one column: rows [top, bottom] in `colour` (none if top > bottom).
struct Strip {
  int32_t top = 1, bottom = 0;
  uint8_t colour[3] = {0, 0, 0};
};

// Casts the ray of column x: the strip of the first wall block it hits before the fog cut-off.
Strip cast_column(const ReleaseView& v, const ReleaseCamera& cam, int x) {
  const double px = v.col + 0.5, py = v.row + 0.5;
  const double camera_x = 2.0 * x / W - 1.0;
  const double ray_dx = cam.dir_x + cam.plane_x * camera_x;
  const double ray_dy = cam.dir_y + cam.plane_y * camera_x;
  int32_t map_x = v.col, map_y = v.row;
  const double ddx = std::fabs(ray_dx) > 1e-12 ? std::fabs(1.0 / ray_dx) : 1e30;
  const double ddy = std::fabs(ray_dy) > 1e-12 ? std::fabs(1.0 / ray_dy) : 1e30;
  int32_t step_x, step_y;
  double side_x, side_y;
  if (ray_dx < 0) {
    step_x = -1;
    side_x = (px - map_x) * ddx;
  } else {
    step_x = 1;
    side_x = (map_x + 1.0 - px) * ddx;
  }
  if (ray_dy < 0) {
    step_y = -1;
    side_y = (py - map_y) * ddy;
  } else {
    step_y = 1;
    side_y = (map_y + 1.0 - py) * ddy;
  }
  const double fog_dist = static_cast<double>(v.vision_range * 2);
  int side = 0;
  for (;;) {
    if (side_x < side_y) {
      side_x += ddx;
      map_x += step_x;
      side = 0;
    } else {
      side_y += ddy;
      map_y += step_y;
      side = 1;
    }
    const double perp = side == 0 ? side_x - ddx : side_y - ddy;
    if (perp > fog_dist + 0.5) return {};
    if (map_y < 0 || map_y >= v.side || map_x < 0 || map_x >= v.side) return {};
    if (v.grid[static_cast<size_t>(map_y) * v.side + map_x]) break;
  }
  double perp_dist = side == 0 ? side_x - ddx : side_y - ddy;
  if (!(perp_dist > 0.08)) perp_dist = 0.08;  // Python's max(0.08, d) keeps 0.08 unless d is larger
  const int32_t line_h = static_cast<int32_t>(H / perp_dist);
  double fog = 1.0 - perp_dist / fog_dist;
  if (!(fog > 0.0)) fog = 0.0;
  const float* base = (v.goal_walls && is_goal_neighbour(v, map_y, map_x)) ? kGoalWall : side == 0 ? kWallX : kWallY;
  const float fog32 = static_cast<float>(fog);
  Strip strip;
  strip.top = std::max(0, H / 2 - line_h / 2);
  strip.bottom = std::min(H - 1, H / 2 + line_h / 2);
  for (int i = 0; i < 3; ++i) strip.colour[i] = static_cast<uint8_t>(base[i] * fog32);
  return strip;
}

// A word whose first 3 bytes in memory are the pixel's, for the 4-byte stores below.
uint32_t pixel_word(const uint8_t* rgb) {
  uint32_t word = 0;
  std::memcpy(&word, rgb, 3);
  return word;
}

// Stores a row of W pixels, each the first 3 bytes of its word: four pixels as three words where
// the machine is little-endian (as rgb_tiles packs them), else pixel by pixel.
void store_pixels(const uint32_t* words, uint8_t* line) {
  static_assert(W % 4 == 0);
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
    for (int x = 0; x < W; x += 4) {
      const uint32_t p0 = words[x], p1 = words[x + 1], p2 = words[x + 2], p3 = words[x + 3];
      const uint32_t w0 = p0 | (p1 << 24), w1 = (p1 >> 8) | (p2 << 16), w2 = (p2 >> 16) | (p3 << 8);
      std::memcpy(line + 3 * x, &w0, 4);
      std::memcpy(line + 3 * x + 4, &w1, 4);
      std::memcpy(line + 3 * x + 8, &w2, 4);
    }
  } else {
    for (int x = 0; x < W; ++x) std::memcpy(line + 3 * x, &words[x], 3);
  }
}

}  // namespace

ReleaseCamera release_camera(int heading) {
  if (heading < 0 || heading > 3) throw std::invalid_argument("heading must be 0..3 (north, east, south, west)");
  const double dir_x = kDirX[heading], dir_y = kDirY[heading];
  return {dir_x, dir_y, -dir_y * kHalfFovTan, dir_x * kHalfFovTan};
}

void draw_release_view(const ReleaseView& v, uint8_t* rgb, ptrdiff_t stride) {
  if (v.side < 3 || v.row < 0 || v.row >= v.side || v.col < 0 || v.col >= v.side) {
    throw std::invalid_argument("the player's block must lie inside the block grid");
  }
  if (v.vision_range < 1) throw std::invalid_argument("vision_range must be at least 1");
  const ReleaseCamera cam = release_camera(v.heading);
  alignas(16) std::array<int32_t, W> tops, bottoms;
  alignas(16) std::array<uint32_t, W> walls, words;
  for (int x = 0; x < W; ++x) {
    const Strip strip = cast_column(v, cam, x);
    tops[x] = strip.top;
    bottoms[x] = strip.bottom;
    walls[x] = pixel_word(strip.colour);
  }
  // Row by row, in the frame's memory order: each pixel the strip's colour or the row's background,
  // chosen a row at a time (a loop the compiler vectorizes), then packed.
  const Background& rows = background();
  for (int y = 0; y < H; ++y) {
    const uint32_t background_word = pixel_word(rows[y].data());
    for (int x = 0; x < W; ++x) {
      const uint32_t inside = 0u - static_cast<uint32_t>((tops[x] <= y) & (y <= bottoms[x]));
      words[x] = (walls[x] & inside) | (background_word & ~inside);
    }
    store_pixels(words.data(), rgb + y * stride);
  }
}

}  // namespace cogsim::maze
