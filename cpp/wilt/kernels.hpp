// The general VM's typed lane kernels: whole-block loops for an instruction whose operands' static
// types (Program::static_tags) allow one, in place of the per-lane dispatch of scalar.hpp. Each
// returns false, writing nothing, where the types do not fit; the caller then runs the instruction
// lane by lane (evaluator.cpp). Results, flags and tags are what the lane-by-lane path writes.
// Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wilt/lanes.hpp"

namespace cogsim::wilt::detail {

// Arithmetic and comparisons where one side is statically float: loops over plain doubles. An int
// operand is converted into promoted_a or promoted_b (kBlock doubles each).
bool float_kernel(Op op, const Lanes& A, const Lanes& B, uint8_t ta, uint8_t tb, const Lanes& out, size_t n,
                  double* promoted_a, double* promoted_b);

// Unary operations on a statically float operand: plain loops over doubles, no per-lane dispatch.
bool float_unary_kernel(Op op, const Lanes& A, uint8_t ta, const Lanes& out, size_t n);

// and / or / not / bool() on operands that are statically bool: branch-free loops (B is null for
// not and bool()).
bool bool_kernel(Op op, const Lanes& A, const Lanes* B, uint8_t ta, uint8_t tb, const Lanes& out, size_t n);

}  // namespace cogsim::wilt::detail
