// Pattern databases: exact distances of abstract states (corners alone, or a subset of edges),
// computed by breadth-first search over their coordinates and stored 4 bits per entry.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/table_file.hpp"
#include "cube/coords.hpp"
#include "cube/phase1.hpp"

namespace cogsim::cube {

using Progress = std::function<void(const std::string&)>;

constexpr uint32_t kTableVersion = 1;

// The cross-process lock over building the cached table `name` at `path` (none where there is no
// cache folder); it tells `progress` when it waits for another process's build.
std::optional<TableBuildLock> table_build_lock(const std::string& path, const std::string& name,
                                               const Progress& progress);

class PatternDatabase {
 public:
  // Maps the table from `cache_dir` or, if it is missing or corrupt, builds it and writes it
  // there. An empty cache_dir builds in memory only.
  static PatternDatabase corners(const std::string& cache_dir, unsigned threads, const Progress& progress);
  static PatternDatabase edges(const EdgeSubset& subset, const std::string& cache_dir, unsigned threads,
                               const Progress& progress);
  // Phase-1 distances (see phase1.hpp): plain 141 million entries, 70 MB; sorted 3.33 billion,
  // 1.67 GB.
  static PatternDatabase phase1(Phase1Kind kind, const std::string& cache_dir, unsigned threads,
                                const Progress& progress);
  // The name of the phase-1 table of `kind` (not kOff), and the file a table of `name` is kept in.
  static std::string phase1_name(Phase1Kind kind);
  static std::string file_name(const std::string& name);

  uint8_t operator[](uint64_t index) const { return (data_[index >> 1] >> ((index & 1) << 2)) & 15; }
  void prefetch(uint64_t index) const { __builtin_prefetch(data_ + (index >> 1)); }
  uint64_t entries() const { return entries_; }
  bool empty() const { return data_ == nullptr; }
  uint64_t bytes() const { return (entries_ + 1) / 2; }
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  bool built() const { return built_; }
  double build_seconds() const { return build_seconds_; }
  std::array<uint64_t, 16> histogram() const;

 private:
  // `build` returns the packed table (4 bits per entry); it holds `build_bytes` of memory at most.
  static PatternDatabase load_or_build(const std::string& name, uint64_t entries, uint64_t build_bytes,
                                       const std::string& cache_dir, const Progress& progress,
                                       const std::function<std::vector<uint8_t>()>& build);

  std::string name_;
  std::string path_;
  uint64_t entries_ = 0;
  std::vector<uint8_t> owned_;
  MappedTable mapped_;
  const uint8_t* data_ = nullptr;
  bool built_ = false;
  double build_seconds_ = 0;
};

}  // namespace cogsim::cube
