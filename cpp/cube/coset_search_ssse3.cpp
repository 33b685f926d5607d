// The coset search compiled for SSSE3, whose pshufb is a whole byte shuffle in one instruction.
// The standard and project headers come first, compiled for the baseline like everywhere else;
// only the kernel's own functions (and the always-inlined vector helpers they call) take the
// SSSE3 target. COGSIM_NO_CLONES leaves this variant out (scripts/sanitize.sh tests the portable
// one).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/parallel.hpp"
#include "cube/coset_search.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(COGSIM_NO_CLONES)
#define COGSIM_COSET_SSSE3 1
#pragma GCC push_options
#pragma GCC target("ssse3,sse4.1,popcnt")
#include "cube/coset_search_kernel.hpp"
namespace cogsim::cube::coset_kernel {
std::vector<int> solve_ssse3(const CosetSearchData& data, const CubieCube& cube, uint64_t max_nodes, SearchStats* stats,
                             unsigned threads) {
  return Kernel<1>(data).solve(cube, max_nodes, stats, threads);
}
}  // namespace cogsim::cube::coset_kernel
#pragma GCC pop_options
#endif

namespace cogsim::cube::coset_kernel {

#if defined(COGSIM_COSET_SSSE3)
bool ssse3_available() {
  static const bool available =
      __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("popcnt");
  return available;
}
#else
bool ssse3_available() { return false; }
std::vector<int> solve_ssse3(const CosetSearchData&, const CubieCube&, uint64_t, SearchStats*, unsigned) {
  throw std::logic_error("this build has no SSSE3 coset search");
}
#endif

}  // namespace cogsim::cube::coset_kernel
