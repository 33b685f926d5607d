#include "maze/raycast.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

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

// The ceiling and floor, in float32 as NumPy computes them (t = y / 179, colour a * (1 - t) + b * t,
// truncated to uint8): the whole view with no wall in it, packed RGB rows.
std::vector<uint8_t> make_background() {
  std::vector<uint8_t> view(static_cast<size_t>(W) * H * 3);
  const float span = static_cast<float>(H / 2 - 1);
  for (int y = 0; y < H; ++y) {
    uint8_t colour[3];
    if (y < H / 2) {
      const float t = static_cast<float>(y) / span;
      const float t_rev = 1.0f - t;
      for (int i = 0; i < 3; ++i) colour[i] = static_cast<uint8_t>(kCeilingBottom[i] * t_rev + kCeilingTop[i] * t);
    } else {
      const float t = (static_cast<float>(y) - static_cast<float>(H / 2)) / span;
      for (int i = 0; i < 3; ++i) colour[i] = static_cast<uint8_t>(kFloorTop[i] * (1.0f - t) + kFloorBottom[i] * t);
    }
    for (int x = 0; x < W; ++x) std::memcpy(&view[(static_cast<size_t>(y) * W + x) * 3], colour, 3);
  }
  return view;
}

const std::vector<uint8_t>& background() {
  static const std::vector<uint8_t> view = make_background();
  return view;
}

// A set of columns, walked as runs of consecutive members.
class Columns {
 public:
  void insert(int x) { words_[x >> 6] |= uint64_t{1} << (x & 63); }
  void erase(int x) { words_[x >> 6] &= ~(uint64_t{1} << (x & 63)); }

  // fn(first, last) for each run [first, last) of members, left to right.
  template <typename Fn>
  void for_each_run(Fn&& fn) const {
    int x = 0;
    while (x < W) {
      const int first = next(x, false);
      if (first == W) return;
      x = next(first, true);
      fn(first, x);
    }
  }

 private:
  static constexpr int kWords = W / 64;
  static_assert(W % 64 == 0);

  // The first column >= x that is a member (or, with `absent`, that is not); W if none.
  int next(int x, bool absent) const {
    int word = x >> 6;
    uint64_t bits = (absent ? ~words_[word] : words_[word]) & (~uint64_t{0} << (x & 63));
    while (bits == 0) {
      if (++word == kWords) return W;
      bits = absent ? ~words_[word] : words_[word];
    }
    return (word << 6) + std::countr_zero(bits);
  }

  std::array<uint64_t, kWords> words_{};
};

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
  // Each column's strip, its colour in a row of strips, and the columns grouped by their strip's ends.
  std::array<uint8_t, W * 3> strips_row{};
  std::array<int16_t, W> by_top, by_bottom;
  std::array<int16_t, H + 1> top_start{}, bottom_start{};
  std::array<Strip, W> strips;
  int hits = 0;
  for (int x = 0; x < W; ++x) {
    strips[x] = cast_column(v, cam, x);
    if (strips[x].top > strips[x].bottom) continue;
    std::memcpy(&strips_row[3 * x], strips[x].colour, 3);
    ++top_start[strips[x].top + 1];
    ++bottom_start[strips[x].bottom + 1];
    ++hits;
  }
  for (int y = 0; y < H; ++y) {
    top_start[y + 1] += top_start[y];
    bottom_start[y + 1] += bottom_start[y];
  }
  std::array<int16_t, H + 1> top_fill = top_start, bottom_fill = bottom_start;
  for (int x = 0; x < W; ++x) {
    if (strips[x].top > strips[x].bottom) continue;
    by_top[top_fill[strips[x].top]++] = static_cast<int16_t>(x);
    by_bottom[bottom_fill[strips[x].bottom]++] = static_cast<int16_t>(x);
  }
  // Every strip covers the middle row (top <= H/2 <= bottom). Rows are drawn from the middle outwards:
  // a row is the background's row, then the strips' colour over the columns whose strip reaches it;
  // moving away from the middle, columns only ever leave that set.
  const std::vector<uint8_t>& sky = background();
  const size_t row_bytes = static_cast<size_t>(W) * 3;
  auto draw_row = [&](int y, const Columns& inside) {
    uint8_t* line = rgb + y * stride;
    std::memcpy(line, &sky[y * row_bytes], row_bytes);
    inside.for_each_run([&](int first, int last) {
      std::memcpy(line + 3 * first, &strips_row[3 * first], static_cast<size_t>(last - first) * 3);
    });
  };
  Columns inside;
  for (int i = 0; i < hits; ++i) inside.insert(by_top[i]);
  for (int y = H / 2 - 1; y >= 0; --y) {  // inside: top <= y
    for (int i = top_start[y + 1]; i < top_start[y + 2]; ++i) inside.erase(by_top[i]);
    draw_row(y, inside);
  }
  Columns below;
  for (int i = 0; i < hits; ++i) below.insert(by_top[i]);
  for (int y = H / 2; y < H; ++y) {  // inside: y <= bottom
    if (y > H / 2) {
      for (int i = bottom_start[y - 1]; i < bottom_start[y]; ++i) below.erase(by_bottom[i]);
    }
    draw_row(y, below);
  }
}

}  // namespace cogsim::maze
