"""Opcodes of the WILT rule VM, as the core defines them."""

from __future__ import annotations

import enum

from cogsim import _core

# Value tags shared with the core (cpp/wilt/vm.hpp: Tag).
BOOL, INT, FLOAT = 0, 1, 2


# The opcodes come from the core (cpp/wilt/vm.hpp: COGSIM_WILT_OPS), in opcode order: ARG, CONST, ADD,
# SUB, MUL, TRUEDIV, FLOORDIV, MOD, POW, ... SUM; nothing here can drift from the VM.
Op = enum.IntEnum("Op", [(name, code) for code, name in enumerate(_core.wilt_opcodes())])
