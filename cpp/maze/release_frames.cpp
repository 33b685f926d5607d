#include "maze/release_frames.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "common/parallel.hpp"
#include "maze/raycast.hpp"

namespace cogsim::maze {

namespace {
constexpr int32_t kMaxOffset = 1 << 20;
}  // namespace

int32_t ReleaseFrames::add_stamp(const uint8_t* rgb, const uint8_t* mask, int32_t width, int32_t height) {
  if (width < 0 || height < 0) throw std::invalid_argument("a stamp's size must not be negative");
  Stamp stamp;
  stamp.width = width;
  stamp.height = height;
  stamp.rgb.assign(rgb, rgb + static_cast<size_t>(width) * height * 3);
  for (int32_t y = 0; y < height; ++y) {
    const uint8_t* row = mask + static_cast<size_t>(y) * width;
    for (int32_t x = 0; x < width;) {
      if (!row[x]) {
        ++x;
        continue;
      }
      const int32_t first = x;
      while (x < width && row[x]) ++x;
      stamp.runs.push_back({y, first, x});
    }
  }
  std::unique_lock lock(mutex_);
  stamps_.push_back(std::move(stamp));
  return static_cast<int32_t>(stamps_.size() - 1);
}

size_t ReleaseFrames::stamp_count() const {
  std::shared_lock lock(mutex_);
  return stamps_.size();
}

void ReleaseFrames::paint(const Stamp& stamp, int32_t x, int32_t y, uint8_t* frame, int32_t width,
                          int32_t height) const {
  for (const Run& run : stamp.runs) {
    const int32_t fy = y + run.row;
    if (fy < 0 || fy >= height) continue;
    const int32_t first = std::max(run.first, -x), last = std::min(run.last, width - x);
    if (first >= last) continue;
    const uint8_t* source = stamp.rgb.data() + (static_cast<size_t>(run.row) * stamp.width + first) * 3;
    std::memcpy(frame + (static_cast<size_t>(fy) * width + x + first) * 3, source,
                static_cast<size_t>(last - first) * 3);
  }
}

void ReleaseFrames::draw(const SceneGrids& scenes, const std::vector<ReleaseFrameSpec>& specs,
                         const std::vector<StampOp>& ops, const std::vector<uint8_t*>& frames, int32_t width,
                         int32_t height, unsigned threads) const {
  if (specs.size() != frames.size()) throw std::invalid_argument("one spec per frame");
  std::shared_lock lock(mutex_);
  for (size_t i = 0; i < specs.size(); ++i) {
    const ReleaseFrameSpec& spec = specs[i];
    const std::string frame = "frame " + std::to_string(i);
    if (spec.scene >= static_cast<int32_t>(scenes.grids.size()) || spec.scene < -1) {
      throw std::invalid_argument(frame + ": scene " + std::to_string(spec.scene) + " is not in the batch");
    }
    if (spec.scene >= 0 && (width != kReleaseViewWidth || height < kReleaseViewHeight)) {
      throw std::invalid_argument(frame + ": a 3D view needs frames 640 wide and at least 360 high");
    }
    if (spec.scene >= 0) {
      const int32_t side = scenes.sides[spec.scene];
      if (spec.row < 0 || spec.row >= side || spec.col < 0 || spec.col >= side || spec.heading < 0 ||
          spec.heading > 3 || spec.vision_range < 1) {
        throw std::invalid_argument(frame +
                                    ": the pose must lie in the scene's grid, the heading in 0..3 and the "
                                    "vision range at least 1");
      }
    }
    if (spec.first_op > spec.last_op || spec.last_op > ops.size()) {
      throw std::invalid_argument(frame + ": its ops are not in the batch");
    }
    for (size_t k = spec.first_op; k < spec.last_op; ++k) {
      if (ops[k].stamp < 0 || static_cast<size_t>(ops[k].stamp) >= stamps_.size()) {
        throw std::invalid_argument(frame + ": stamp " + std::to_string(ops[k].stamp) + " does not exist");
      }
      if (std::abs(ops[k].x) > kMaxOffset || std::abs(ops[k].y) > kMaxOffset) {
        throw std::invalid_argument(frame + ": a stamp lies further than 2^20 px out");
      }
    }
  }
  const size_t frame_bytes = static_cast<size_t>(width) * height * 3;
  parallel_for(specs.size(), threads, [&](size_t i) {
    const ReleaseFrameSpec& spec = specs[i];
    uint8_t* frame = frames[i];
    if (spec.scene >= 0) {
      ReleaseView view;
      view.grid = scenes.grids[spec.scene];
      view.side = scenes.sides[spec.scene];
      view.row = spec.row;
      view.col = spec.col;
      view.heading = spec.heading;
      view.vision_range = spec.vision_range;
      view.goal_walls = spec.goal_walls;
      view.goal_row = spec.goal_row;
      view.goal_col = spec.goal_col;
      draw_release_view(view, frame, static_cast<ptrdiff_t>(width) * 3);
      std::memset(frame + static_cast<size_t>(kReleaseViewHeight) * width * 3, 0,
                  frame_bytes - static_cast<size_t>(kReleaseViewHeight) * width * 3);
    } else {
      std::memset(frame, 0, frame_bytes);
    }
    for (size_t k = spec.first_op; k < spec.last_op; ++k) {
      paint(stamps_[ops[k].stamp], ops[k].x, ops[k].y, frame, width, height);
    }
  });
}

}  // namespace cogsim::maze
