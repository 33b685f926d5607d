#!/usr/bin/env bash
# The C++ core under AddressSanitizer and UndefinedBehaviorSanitizer: builds the extension with
# -fsanitize=address,undefined (any UB is fatal) and runs the tests that drive the engines (cube,
# coset search, WILT VM and its grid evaluation, KidGym, maze and its release frames, pairs, the compositor of 2D
# frames, Cube Bench's release net and the PNG encoder) against it.
# Python itself is not instrumented, so the ASan runtime is preloaded and leak checking is off (the
# interpreter keeps objects alive at exit by design).
# COGSIM_NO_CLONES leaves out the AVX2 variants of the WILT VM's loops and the SSSE3 build of the
# cube's coset search, so the baseline ones, which CPUs without those run, are tested here; the
# main suite tests the others.
# Needs the .venv of scripts/setup.sh. CI runs it after the fast suite.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/sanitize
stage="$build/stage"
.venv/bin/python -m pip install -q cmake ninja 'pybind11>=2.12'
.venv/bin/cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOGSIM_SANITIZE=address,undefined -DCOGSIM_WERROR=ON -DCMAKE_CXX_FLAGS=-DCOGSIM_NO_CLONES \
  -Dpybind11_DIR="$(.venv/bin/python -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$PWD/.venv/bin/python" \
  -DPYBIND11_FINDPYTHON=ON >/dev/null
.venv/bin/cmake --build "$build" -j "${COGSIM_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
rm -rf "$stage" && mkdir -p "$stage"
cp -r python/cogsim "$stage/cogsim"
rm -f "$stage"/cogsim/_core*.so
cp "$build"/_core*.so "$stage/cogsim/"
# allocator_may_return_null: a huge allocation fails with MemoryError, as without ASan (some tests ask CPython for one)
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_init_order=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" PYTHONPATH="$stage" \
  .venv/bin/python -m pytest -q -m "not slow" -p no:cacheprovider \
  tests/test_cube_state.py tests/test_cube_oracle.py tests/test_cube_coset.py tests/benchmarks/wilt/test_wilt_vm.py tests/benchmarks/wilt/test_wilt_bounds.py \
  tests/benchmarks/wilt/test_wilt_equivalence.py tests/benchmarks/wilt/test_wilt_grid.py tests/test_render_paths.py tests/benchmarks/kidgym/test_kidgym_release_mechanics.py \
  tests/benchmarks/rngbench/maze/test_maze_core.py tests/benchmarks/rngbench/maze/test_maze_release_look.py \
  tests/benchmarks/rngbench/pairs/test_pairs_core.py tests/benchmarks/rngbench/pairs/test_pairs_release_look.py \
  tests/benchmarks/cubebench/test_cubebench_release_look.py tests/test_render_png.py \
  tests/test_security_files.py::test_errors_quote_bad_input_escaped_and_whole \
  tests/test_security_files.py::test_a_command_line_state_with_undecodable_bytes_is_a_clear_error \
  tests/test_security_tables.py::test_a_pattern_database_that_is_not_a_regular_file_is_refused_without_blocking \
  tests/test_security_tables.py::test_a_coset_table_that_is_a_fifo_is_refused_without_blocking \
  tests/test_security_tables.py::test_the_files_of_a_coset_build_are_never_written_through_links_or_opened_blocking \
  tests/test_security_tables.py::test_a_table_written_beside_a_planted_link_replaces_nothing_else
