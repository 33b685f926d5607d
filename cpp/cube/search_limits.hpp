// What every cube search shares: its node budget and the statistics it reports.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace cogsim::cube {

// Raised when a query needs more search nodes than the caller allowed.
class SearchLimitExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SearchStats {
  uint64_t nodes = 0;
};

}  // namespace cogsim::cube
