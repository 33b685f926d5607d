"""The test VLM (``python -m cogsim.agents.tiny_vlm``): the same files for the same seed, SmolLM2's
real text weights inside (checked with transformers against the SmolLM2 folder it was built from:
the same logits on text), and one-line errors. Needs ``bash scripts/setup_e2e.sh``."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from e2e.vlm import build_vlm, engine_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def digests(folder: Path) -> dict:
    files = (
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "processor_config.json",
        "chat_template.jinja",
    )
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in files}


def test_the_same_seed_gives_the_same_files_and_another_seed_other_weights(tmp_path):
    from cogsim.agents.convert_gguf import cached_conversion, smollm2_gguf
    from cogsim.agents.tiny_vlm import build

    cached = build_vlm()
    smollm2 = cached_conversion(smollm2_gguf())
    again = build(tmp_path / "again", smollm2, seed=0)
    assert digests(again) == digests(cached)
    assert json.loads((again / "config.json").read_text()) == json.loads((cached / "config.json").read_text())
    other = build(tmp_path / "other", smollm2, seed=1)
    assert digests(other)["model.safetensors"] != digests(cached)["model.safetensors"]
    assert {k: v for k, v in digests(other).items() if k != "model.safetensors"} == {
        k: v for k, v in digests(cached).items() if k != "model.safetensors"
    }


def test_transformers_loads_it_with_smollm2s_text_weights():
    """An independent reading of the folder: transformers' Idefics3 over the text of a prompt gives
    the logits transformers' Llama gives from the SmolLM2 folder the VLM was built from."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, Idefics3ForConditionalGeneration

    from cogsim.agents.convert_gguf import cached_conversion, smollm2_gguf

    folder, smollm2 = build_vlm(), cached_conversion(smollm2_gguf())
    vlm = Idefics3ForConditionalGeneration.from_pretrained(folder, dtype=torch.float32)
    text = AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32)
    ids = AutoTokenizer.from_pretrained(smollm2)("The capital of France is", return_tensors="pt")["input_ids"]
    assert AutoTokenizer.from_pretrained(folder)("The capital of France is")["input_ids"] == ids[0].tolist()
    with torch.no_grad():
        states = vlm.model.text_model(input_ids=ids).last_hidden_state, text.model(input_ids=ids).last_hidden_state
        ours, theirs = vlm(input_ids=ids).logits, text(input_ids=ids).logits
    assert torch.equal(*states)  # the decoder's weights carried over bit for bit
    vocabulary = theirs.shape[-1]
    assert torch.equal(vlm.lm_head.weight[:vocabulary], text.lm_head.weight)
    # The output product over the VLM's longer vocabulary may take another BLAS kernel (seen on CPUs
    # with AVX-512): the same numbers up to float32 rounding, and the same greedy tokens.
    torch.testing.assert_close(ours[..., :vocabulary], theirs, rtol=1e-5, atol=1e-4)
    assert torch.equal(ours[..., :vocabulary].argmax(-1), theirs.argmax(-1))
    assert vlm.config.vision_config.num_hidden_layers == 2 and vlm.config.scale_factor == 4


def test_bad_arguments_are_one_line(tmp_path):
    (tmp_path / "notllama").mkdir()
    (tmp_path / "notllama" / "config.json").write_text('{"model_type": "gpt2"}')
    command = [sys.executable, "-m", "cogsim.agents.tiny_vlm", str(tmp_path / "out")]
    done = subprocess.run(
        [*command, "--text-model", str(tmp_path / "notllama")], capture_output=True, text=True, env=engine_env()
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "the text model must be a Llama model (SmolLM2 is)" in done.stderr and not (tmp_path / "out").exists()
    done = subprocess.run([*command, "--seed", "-1"], capture_output=True, text=True, env=engine_env())
    assert done.returncode == 1 and "seed must be an integer in [0, 2**32 - 1]" in done.stderr
    done = subprocess.run(command[:3], capture_output=True, text=True, env=engine_env())
    assert done.returncode == 2 and "give either DIR or --cached" in done.stderr
