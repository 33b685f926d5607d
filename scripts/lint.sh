#!/usr/bin/env bash
# The house rules, checked: Python lint and format (ruff), types of the public API (mypy) and of the
# extension module's stub (stubtest), the layers (import-linter), C++ format (clang-format) and, with
# --tidy, clang-tidy over the core. Needs the .venv of scripts/setup.sh; installs the tools into it.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q 'ruff>=0.8' 'mypy>=1.10' 'import-linter>=2.0' 'clang-format>=18' 'clang-tidy>=18' 'pybind11-stubgen>=2.5'
.venv/bin/ruff check python tests benchmarks scripts examples
.venv/bin/ruff format --check python tests benchmarks scripts examples
.venv/bin/mypy                                     # files and settings: [tool.mypy] in pyproject.toml
.venv/bin/python -m mypy.stubtest cogsim._core     # python/cogsim/_core.pyi against the built extension
# The extension's type signatures in _core.pyi must equal what pybind11-stubgen reads off the built
# module (formatted as the tree): stubtest cannot see pybind11 signatures, so this catches a changed one.
stubs="$(mktemp -d)"
.venv/bin/pybind11-stubgen cogsim._core -o "$stubs" >/dev/null
.venv/bin/ruff check -q --select I --fix --config line-length=120 "$stubs/cogsim/_core.pyi"
.venv/bin/ruff format -q --config line-length=120 "$stubs/cogsim/_core.pyi"
diff -u python/cogsim/_core.pyi "$stubs/cogsim/_core.pyi" || { echo "lint: python/cogsim/_core.pyi is stale: regenerate it as scripts/lint.sh does"; exit 1; }
rm -rf "$stubs"
.venv/bin/lint-imports                             # contracts: [tool.importlinter] in pyproject.toml
.venv/bin/clang-format --dry-run --Werror cpp/*/*.cpp cpp/*/*.hpp bindings/*.cpp bindings/*.hpp
if [ "${1:-}" = "--tidy" ]; then
  build=build/tidy
  .venv/bin/python -m pip install -q cmake ninja 'pybind11>=2.12'
  .venv/bin/cmake -S . -B "$build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -Dpybind11_DIR="$(.venv/bin/python -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$PWD/.venv/bin/python" \
    -DPYBIND11_FINDPYTHON=ON >/dev/null
  .venv/bin/clang-tidy -p "$build" --quiet cpp/*/*.cpp
fi
echo "lint: every check passed"
