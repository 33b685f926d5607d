// Program preparation (vm.hpp: prepare): checks the bytecode the Python compiler wrote, then works
// out what the evaluators need to know before they run it: each value's static type set, its
// register slots (for the general VM and for the fast path), whether the typed fast path takes the
// program and which of its bools it holds as bits, and each value's variables and operand lists for
// the grid evaluator.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "wilt/lanes.hpp"
#include "wilt/pyfloat.hpp"
#include "wilt/scalar.hpp"
#include "wilt/vm.hpp"

namespace cogsim::wilt {
using detail::is_comparison;
using detail::is_unary;
using detail::kBoolBit;
using detail::kComplexBit;
using detail::kFloatBit;
using detail::kIntBit;

namespace {

constexpr uint8_t kIntegral = kBoolBit | kIntBit;

void check(bool ok, size_t k, const std::string& what) {
  if (!ok) throw std::invalid_argument("rule program instruction " + std::to_string(k) + ": " + what);
}

// Values an instruction reads (the operands that are value indices).
std::vector<int32_t> operands(const Program& p, const Instr& in) {
  switch (in.op) {
    case Op::Arg:
    case Op::Const:
      return {};
    case Op::Select:
      return {in.a, in.b, in.c};
    case Op::IsClose:
      return {in.a, in.b, in.c, in.d};
    case Op::Sum:
      return std::vector<int32_t>(p.aux.begin() + in.a, p.aux.begin() + in.a + in.b);
    default:
      if (is_unary(in.op)) return {in.a};
      return {in.a, in.b};
  }
}

// Static type sets, so that float-only instructions run as plain array loops.
uint8_t result_tags(const Program& p, const Instr& in) {
  const auto& st = p.static_tags;
  auto has_float = [&](int32_t v) { return (st[v] & kFloatBit) != 0; };
  auto only_float = [&](int32_t v) { return st[v] == kFloatBit; };
  switch (in.op) {
    case Op::Arg:
      return kFloatBit;
    case Op::Const:
      return static_cast<uint8_t>(1 << p.constants[in.a].tag);
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::FloorDiv:
    case Op::Mod: {
      uint8_t t = 0;
      if (has_float(in.a) || has_float(in.b)) t |= kFloatBit;
      if (!only_float(in.a) && !only_float(in.b)) t |= kIntBit;
      return t;
    }
    case Op::Pow: {
      // A negative float to a fractional power is complex; an integral constant exponent rules that out.
      const Instr& exponent = p.code[in.b];
      const bool integral_exponent =
          exponent.op == Op::Const &&
          (p.constants[exponent.a].tag != kFloat || p.constants[exponent.a].f == std::trunc(p.constants[exponent.a].f));
      uint8_t t = integral_exponent ? kFloatBit : (kFloatBit | kComplexBit);
      if (!only_float(in.a) && !only_float(in.b)) t |= kIntBit;
      return t;
    }
    case Op::TrueDiv:
    case Op::ToFloat:
    case Op::Sqrt:
    case Op::Fabs:
      return kFloatBit;
    case Op::Neg:
    case Op::Pos:
    case Op::Abs:
      return static_cast<uint8_t>((has_float(in.a) ? kFloatBit : 0) | ((st[in.a] & kIntegral) ? kIntBit : 0));
    case Op::RoundDigits:
      return static_cast<uint8_t>((has_float(in.a) ? kFloatBit : 0) | ((st[in.a] & kIntegral) ? kIntBit : 0));
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor:
      return kBoolBit | kIntBit;
    case Op::Invert:
    case Op::LShift:
    case Op::RShift:
    case Op::ToInt:
    case Op::Round:
    case Op::Floor:
    case Op::Ceil:
    case Op::Gcd:
      return kIntBit;
    case Op::And:
    case Op::Or:
    case Op::Min:
    case Op::Max:
      return st[in.a] | st[in.b];
    case Op::Select:
      return st[in.b] | st[in.c];
    case Op::Seq:
      return st[in.b];
    case Op::Sum:
      return kIntBit | kFloatBit;
    default:
      return kBoolBit;  // Not, Truth, comparisons, IsClose, IsInteger, IsInstance
  }
}

bool exact_constant(const Program& p, int32_t v) {
  const Instr& in = p.code[v];
  if (in.op != Op::Const) return false;
  const Constant& c = p.constants[in.a];
  return c.tag == kFloat || (c.i <= py::kTwo53 && c.i >= -py::kTwo53);
}

// A float, or a constant whose double is exactly its value (so float arithmetic and comparisons
// with it are CPython's int/float mixed operations).
bool numeric(const Program& p, int32_t v) { return p.static_tags[v] == kFloatBit || exact_constant(p, v); }

// Whether the typed fast path (fast_path.cpp) runs instruction k: an op it has a loop for, on values
// that are numbers or bools there.
bool fast_eligible(const Program& p, size_t k) {
  const Instr& in = p.code[k];
  const uint8_t tag = p.static_tags[k];
  const bool is_float = tag == kFloatBit, float_or_bool = tag == kFloatBit || tag == kBoolBit;
  auto floats = [&](std::initializer_list<int32_t> vs) {
    return std::all_of(vs.begin(), vs.end(), [&](int32_t v) { return numeric(p, v); });
  };
  switch (in.op) {
    case Op::Arg:
      return true;
    case Op::Const:
      return exact_constant(p, static_cast<int32_t>(k));
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::TrueDiv:
    case Op::FloorDiv:
    case Op::Mod:
    case Op::Pow:
      return is_float && floats({in.a, in.b});  // Pow: float only when the exponent rules out complex results
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return floats({in.a, in.b});
    case Op::Min:
    case Op::Max:
      return is_float && p.static_tags[in.a] == kFloatBit && p.static_tags[in.b] == kFloatBit;
    case Op::Neg:
    case Op::Pos:
    case Op::Abs:
    case Op::Fabs:
    case Op::Sqrt:
    case Op::ToFloat:
      return is_float && floats({in.a});
    case Op::Not:
    case Op::Truth:
      return floats({in.a}) || p.static_tags[in.a] == kBoolBit;
    case Op::IsInteger:
    case Op::IsInstance:
      return p.static_tags[in.a] == kFloatBit;
    case Op::And:
    case Op::Or:
    case Op::Seq:
      return float_or_bool;
    case Op::Select:
      return float_or_bool && (floats({in.a}) || p.static_tags[in.a] == kBoolBit);
    case Op::IsClose:
      return floats({in.a, in.b, in.c, in.d});
    default:
      return false;
  }
}

// Whether an op can hold its value as bits: a bool made from numbers or bools by an op that
// never raises.
bool bit_capable(const Program& p, size_t k) {
  const Instr& in = p.code[k];
  if (is_comparison(in.op)) return numeric(p, in.a) && numeric(p, in.b);
  switch (in.op) {
    case Op::And:
    case Op::Or:
      return p.static_tags[in.a] == kBoolBit && p.static_tags[in.b] == kBoolBit;
    case Op::Not:
    case Op::Truth:
      return numeric(p, in.a) || p.static_tags[in.a] == kBoolBit;
    case Op::IsInteger:
    case Op::IsInstance:
      return p.static_tags[in.a] == kFloatBit;
    default:
      return false;
  }
}

// Values the fast path holds as bits: bit-capable ones whose readers all take bits (and, or, not,
// truth held as bits themselves), and the result. Readers come later in the code, so one backward
// pass decides each value after all of its readers.
std::vector<uint8_t> bit_values(const Program& p) {
  const size_t n = p.code.size();
  std::vector<uint8_t> held(n, 0), read_as_double(n, 0);
  for (size_t k = n; k-- > 0;) {
    const Instr& in = p.code[k];
    held[k] = bit_capable(p, k) && !read_as_double[k];
    const bool takes_bits = held[k] && (in.op == Op::And || in.op == Op::Or || in.op == Op::Not || in.op == Op::Truth);
    for (const int32_t v : operands(p, in)) {
      if (!takes_bits) read_as_double[v] = 1;
    }
  }
  return held;
}

// Linear-scan slots: a value's slot is reused once its last reader has run. With keep_constants,
// constants are never freed (the fast path fills them once per block, not once per chunk).
int32_t assign_slots(const Program& p, const std::vector<size_t>& last_use, bool keep_constants,
                     std::vector<int32_t>& slot) {
  const size_t n = p.code.size();
  slot.assign(n, -1);
  std::vector<int32_t> free_slots;
  std::vector<std::vector<int32_t>> dying(n);
  for (size_t v = 0; v + 1 < n; ++v) {
    if (keep_constants && p.code[v].op == Op::Const) continue;
    dying[std::max(last_use[v], v)].push_back(static_cast<int32_t>(v));
  }
  int32_t count = 0;
  for (size_t k = 0; k < n; ++k) {
    if (free_slots.empty() || (keep_constants && p.code[k].op == Op::Const)) {
      slot[k] = count++;  // a kept constant must not share a register with any earlier value either
    } else {
      slot[k] = free_slots.back();
      free_slots.pop_back();
    }
    for (const int32_t v : dying[k]) free_slots.push_back(slot[v]);
  }
  return count;
}

}  // namespace

void prepare(Program& p) {
  static std::atomic<uint64_t> next_id{1};
  p.id = next_id++;
  const size_t n = p.code.size();
  if (n == 0) throw std::invalid_argument("rule program is empty");
  p.static_tags.assign(n, 0);
  std::vector<size_t> last_use(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const Instr& in = p.code[k];
    check(in.op >= Op::Arg && in.op < Op::kCount, k, "unknown opcode " + std::to_string(static_cast<int>(in.op)));
    if (in.op == Op::Arg) check(in.a >= 0 && in.a < 3, k, "argument index must be 0, 1 or 2");
    if (in.op == Op::Const) check(in.a >= 0 && static_cast<size_t>(in.a) < p.constants.size(), k, "bad constant index");
    if (in.op == Op::Sum) {
      check(in.a >= 0 && in.b >= 0 && static_cast<size_t>(in.a) + static_cast<size_t>(in.b) <= p.aux.size(), k,
            "bad operand list");
    }
    for (const int32_t v : operands(p, in)) {
      check(v >= 0 && static_cast<size_t>(v) < k, k, "operand must be an earlier value");
      last_use[v] = k;
    }
    if (in.op == Op::Const) check(p.constants[in.a].tag <= kFloat, k, "bad constant type");
    p.static_tags[k] = result_tags(p, in);
  }
  p.num_slots = assign_slots(p, last_use, false, p.slot);
  p.fast_slots = assign_slots(p, last_use, true, p.fast_slot);
  p.fast = true;
  p.fast_constants.assign(n, 0.0);
  p.fast_bits = bit_values(p);
  p.variables.assign(n, 0);
  p.operand_lists.clear();
  p.operand_start.assign(1, 0);
  for (size_t k = 0; k < n; ++k) {
    const Instr& in = p.code[k];
    if (in.op == Op::Arg) p.variables[k] = static_cast<uint8_t>(1 << in.a);
    for (const int32_t v : operands(p, in)) {
      p.variables[k] |= p.variables[v];
      p.operand_lists.push_back(v);
    }
    p.operand_start.push_back(static_cast<uint32_t>(p.operand_lists.size()));
  }
  for (size_t k = 0; k < n; ++k) {
    p.fast = p.fast && fast_eligible(p, k);
    const Instr& in = p.code[k];
    if (in.op == Op::Const) {
      const Constant& c = p.constants[in.a];
      p.fast_constants[k] = c.tag == kFloat ? c.f : static_cast<double>(c.i);
    }
  }
}

}  // namespace cogsim::wilt
