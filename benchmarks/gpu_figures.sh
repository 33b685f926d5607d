#!/usr/bin/env bash
# Frame figures for a machine with a GPU (NVIDIA driver with EGL), beside llvmpipe and the CPU
# compositor on the same machine: KidGym grid frames, minimaps and 3D maze views at 128 and 576 px
# (grid frames: 288 and 576 px) in batches of 1, 64 and 1,024, each render path chosen explicitly
# (Renderer(path="gl") / path="compositor"); then KidGym envs stepped together (frame batches) on
# the GL path. Needs the .venv of scripts/setup.sh (or PYTHON, an interpreter with cogsim installed);
# not part of CI (tests never need a GPU). Mesa's llvmpipe comes from the system, or from MESA_PREFIX,
# a folder Mesa's Debian packages were unpacked into (dpkg -x) on a machine that has none installed.
#
#   bash benchmarks/gpu_figures.sh            # prints Markdown tables; the first line names the GL device
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}

echo "## The GPU's EGL (the automatic path there is the GL)"
$py benchmarks/bench_paths.py --paths gl,compositor --batches 1,64,1024 --rounds 3

echo
echo "## Mesa llvmpipe on the same machine (its EGL vendor chosen by glvnd's variable)"
prefix=${MESA_PREFIX:-}
mesa_vendor=$prefix/usr/share/glvnd/egl_vendor.d/50_mesa.json
mesa_libs=$prefix/usr/lib/x86_64-linux-gnu
if [ -f "$mesa_vendor" ]; then
  LD_LIBRARY_PATH="${prefix:+$mesa_libs:}${LD_LIBRARY_PATH:-}" LIBGL_DRIVERS_PATH="$mesa_libs/dri" \
    __EGL_VENDOR_LIBRARY_FILENAMES="$mesa_vendor" $py benchmarks/bench_paths.py --paths gl --batches 1,64,1024 \
    --rounds 3 || echo "llvmpipe could not be selected here; the GPU figures above stand alone"
else
  echo "no Mesa EGL vendor file at $mesa_vendor; skipped"
fi

echo
echo "## KidGym envs stepped together, frames on the GL path"
COGSIM_RENDER_PATH=gl $py benchmarks/bench_kidgym.py vector
