// The general VM: every value dynamically typed per lane (bool, int, float, complex) with its
// error and fallback flags, one instruction at a time over a block of lanes. An instruction runs as
// a typed kernel where its operands' static types allow (whole-block loops), else lane by lane with
// scalar.hpp's CPython semantics; short-circuit forms count an operand's flags only where CPython
// evaluates it. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wilt/lanes.hpp"
#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

// The program on lanes [0, n) of one block (n <= kBlock): truth bytes and statuses, as write_results
// gives them for the result's lanes.
void evaluate_general(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint8_t* truth,
                      uint8_t* status);

// Instruction k of the general VM on n <= kBlock lanes (not Arg): operand v is read from views[v].
void general_step(const Program& p, size_t k, const Lanes* views, const Lanes& out, size_t n);

// Truth bytes and statuses (Status) of a result's lanes; truth is 0 unless the status is kOk.
void write_results(const Lanes& result, size_t n, uint8_t* truth, uint8_t* status, uint8_t static_tags);

}  // namespace cogsim::wilt::detail
