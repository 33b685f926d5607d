// WILT rule VM: one compiled rule evaluated over a batch of (x, y, z) float triples.
//
// A program is SSA bytecode written by the Python compiler (cogsim.wilt._compile): instruction k
// defines value k from earlier values. Values are dynamically typed per lane (bool, int, float),
// as in CPython, and every lane carries two flags: "error" (CPython would have raised, so the
// rule is False there) and "fallback" (the exact CPython result needs something the VM does not
// represent: an int beyond 64 bits, a complex number, round() to negative digits...). Lanes with
// the fallback flag are re-evaluated by the Python reference interpreter, so the VM's answer is
// always CPython's. Short-circuiting (and/or/if-else/comparison chains) is expressed by masking
// flags: the flags of an operand count only in lanes where CPython would have evaluated it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cogsim::wilt {

// kComplex carries no payload: ops that raise TypeError on a complex number do so in the VM, all
// others hand the lane to the Python fallback.
enum Tag : uint8_t { kBool = 0, kInt = 1, kFloat = 2, kComplex = 3 };
enum Flag : uint8_t { kError = 1, kFallback = 2 };
enum Status : uint8_t { kOk = 0, kRaised = 1, kNeedsFallback = 2 };

// The opcodes, in one list (COGSIM_WILT_OPS): the enum and the names (Python's spelling) come from
// it, and python/cogsim/benchmarks/wilt/_bytecode.py builds its Op enum from _core.wilt_opcodes(). Operands:
//   ARG: a: argument index 0..2
//   CONST: a: constant index
//   AND: a and b
//   OR: a or b
//   SELECT: b if a else c
//   SEQ: value of b; a was evaluated before it (its flags count)
//   ISCLOSE: math.isclose(a, b, rel_tol=value c, abs_tol=value d)
//   IS_INSTANCE: b: bit 0 int, bit 1 float
//   SUM: a: offset into aux, b: count; sum() of those values
#define COGSIM_WILT_OPS(X)       \
  X(Arg, "ARG")                  \
  X(Const, "CONST")              \
  X(Add, "ADD")                  \
  X(Sub, "SUB")                  \
  X(Mul, "MUL")                  \
  X(TrueDiv, "TRUEDIV")          \
  X(FloorDiv, "FLOORDIV")        \
  X(Mod, "MOD")                  \
  X(Pow, "POW")                  \
  X(Neg, "NEG")                  \
  X(Pos, "POS")                  \
  X(Invert, "INVERT")            \
  X(Not, "NOT")                  \
  X(Truth, "TRUTH")              \
  X(BitAnd, "BITAND")            \
  X(BitOr, "BITOR")              \
  X(BitXor, "BITXOR")            \
  X(LShift, "LSHIFT")            \
  X(RShift, "RSHIFT")            \
  X(Eq, "EQ")                    \
  X(Ne, "NE")                    \
  X(Lt, "LT")                    \
  X(Le, "LE")                    \
  X(Gt, "GT")                    \
  X(Ge, "GE")                    \
  X(And, "AND")                  \
  X(Or, "OR")                    \
  X(Select, "SELECT")            \
  X(Seq, "SEQ")                  \
  X(Abs, "ABS")                  \
  X(ToInt, "TO_INT")             \
  X(ToFloat, "TO_FLOAT")         \
  X(Round, "ROUND")              \
  X(RoundDigits, "ROUND_DIGITS") \
  X(Min, "MIN")                  \
  X(Max, "MAX")                  \
  X(Floor, "FLOOR")              \
  X(Ceil, "CEIL")                \
  X(Sqrt, "SQRT")                \
  X(Fabs, "FABS")                \
  X(IsClose, "ISCLOSE")          \
  X(Gcd, "GCD")                  \
  X(IsInteger, "IS_INTEGER")     \
  X(IsInstance, "IS_INSTANCE")   \
  X(Sum, "SUM")

enum class Op : int32_t {
#define COGSIM_OP_ENUM(name, python_name) name,
  COGSIM_WILT_OPS(COGSIM_OP_ENUM)
#undef COGSIM_OP_ENUM
      kCount
};

inline constexpr const char* kOpNames[] = {
#define COGSIM_OP_NAME(name, python_name) python_name,
    COGSIM_WILT_OPS(COGSIM_OP_NAME)
#undef COGSIM_OP_NAME
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == static_cast<size_t>(Op::kCount));

struct Instr {
  Op op;
  int32_t a, b, c, d;
};

struct Constant {
  uint8_t tag;
  double f;
  int64_t i;
};

struct Program {
  std::vector<Instr> code;
  std::vector<int32_t> aux;
  std::vector<Constant> constants;
  bool python312 = false;  // int.is_integer() exists and sum() of floats is compensated (3.12+)

  // Filled by prepare(): static type sets and physical register slots.
  std::vector<uint8_t> static_tags;  // bit (1 << Tag)
  std::vector<int32_t> slot;
  int32_t num_slots = 0;
  // The typed fast path (vm.cpp): every value statically a float or a bool, so the program runs as
  // plain double loops with no per-lane tags or flags; a block where an op raises is re-run on the
  // general path, so the answer stays CPython's.
  bool fast = false;
  std::vector<double> fast_constants;  // per value: its constant as a double (Const values only)
  std::vector<int32_t> fast_slot;      // registers of the fast path; constants keep theirs throughout
  int32_t fast_slots = 0;
  // Per value: held as one bit per lane rather than a double: a bool that only feeds and/or/not or
  // is the result, so comparisons write bits and the result is the truth itself.
  std::vector<uint8_t> fast_bits;
  // Per value: the arguments it depends on (bit 0 x, 1 y, 2 z) and the values it reads
  // (operand_lists[operand_start[k] .. operand_start[k + 1])), for the grid evaluator (grid.hpp).
  std::vector<uint8_t> variables;
  std::vector<int32_t> operand_lists;
  std::vector<uint32_t> operand_start;
  uint64_t id = 0;  // distinct for every prepared program: what a thread's filled constants belong to
};

// Checks operands and opcodes and computes static types and register slots; throws
// std::invalid_argument naming the instruction.
void prepare(Program& program);

// Evaluates the program on n points. truth[i] is 1 where the rule returns a truthy value,
// status[i] one of Status (truth is 0 unless status is kOk).
void evaluate(const Program& program, const double* xs, const double* ys, const double* zs, size_t n, uint8_t* truth,
              uint8_t* status, unsigned threads);

// Compares two rules, or a rule with precomputed truth values, on n points.
struct Comparison {
  int64_t mismatches = 0;
  int64_t true_a = 0, true_b = 0, true_both = 0;
  int64_t fallback = 0;  // points the VM could not decide; counts are then incomplete
  int64_t raised_a = 0;  // decided points where rule a raised (its truth there is false)
  std::vector<int64_t> first_mismatches;
  std::vector<int64_t> first_raised_a;  // the first max_examples of those points, in order
};

Comparison compare(const Program& a, const Program* b, const uint8_t* truth_b, const double* xs, const double* ys,
                   const double* zs, size_t n, size_t max_examples, unsigned threads);

}  // namespace cogsim::wilt
