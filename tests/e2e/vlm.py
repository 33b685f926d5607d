"""What the vision-model end-to-end tests share: the test VLM (built once per cache), vLLM's
OpenAI-compatible server for it, the image suites, and the independent checks of a stored run
against the model's own processor (prompt token counts, the pixels the processor was given)."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from cogsim.agents.history import HistoryPolicy

KIDGYM_TASKS = (
    "classification",
    "counting",
    "decode",
    "decode_maze",
    "filling",
    "maze",
    "memory_decode",
    "memory_filling",
    "memory_maze",
    "placement",
    "puzzle",
    "selection",
    "sorting",
)
CUBE_IMAGE_TESTS = (  # every Cube Bench test whose default modality shows the net
    "closed-loop",
    "invariance",
    "optimal-move",
    "reconstruction",
    "recovery",
    "reflection",
    "verification",
)
PAIRS_IMAGE = {"modality": "image", "rows": 2, "cols": 3}
EPISODES = 2  # of the games whose prompts grow with every turn (one each of the others)
MAX_TURNS = 3
MAX_TOKENS = 16


def image_tasks() -> list[dict]:
    """Every image suite, level 1 of KidGym, small boards and mazes, the releases'
    pictures (Matching Pairs' card faces from the installed release files or the stand-in pack)."""
    tasks = [{"env_id": f"kidgym/{t}", "episodes": 1, "options": {"level": 1}} for t in KIDGYM_TASKS]
    tasks += [{"env_id": f"cube/{t}", "episodes": 1, "options": {}} for t in CUBE_IMAGE_TESTS]
    tasks += [
        {"env_id": "pairs/single", "episodes": EPISODES, "options": dict(PAIRS_IMAGE)},
        {"env_id": "pairs/single", "episodes": EPISODES, "options": {**PAIRS_IMAGE, "theme": "textures"}},
        {"env_id": "pairs/duel", "episodes": EPISODES, "options": dict(PAIRS_IMAGE)},
        {"env_id": "maze3d/nav", "episodes": EPISODES, "options": {"size": 5}},
    ]
    return tasks


# The engine of the e2e stage (as tests/e2e/test_vllm_loop.py's: float32, a 1 GiB KV cache), with a
# context that holds MAX_TURNS turns of every suite's full history.
ENGINE = {"max_model_len": 8192, "kv_cache_memory_bytes": 1 << 30, "dtype": "float32"}


def engine_env() -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)  # the runs size the KV cache with the agent option
    return env


def build_vlm() -> Path:
    """The test VLM, built once per $COGSIM_CACHE (SmolLM2 converted first if setup did not)."""
    pytest.importorskip("vllm", reason="vLLM is not installed: run scripts/setup_e2e.sh")
    done = subprocess.run(
        [sys.executable, "-m", "cogsim.agents.tiny_vlm", "--cached"],
        capture_output=True,
        text=True,
        timeout=900,
        env=engine_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VllmServer:
    """vLLM's OpenAI-compatible server for FOLDER on loopback, started as docs/guides/local-models.md
    says for the vllm-cpu build (the server's module: the `vllm` command reads the version of a
    distribution named vllm, and vllm-cpu is named otherwise)."""

    def __init__(self, folder: Path, log: Path, name: str, *args: str):
        self.url = f"http://127.0.0.1:{free_port()}/v1"
        port = self.url.rsplit(":", 1)[1].split("/")[0]
        command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder)]
        command += ["--served-model-name", name, "--port", port, "--host", "127.0.0.1", *args]
        self.name, self.log = name, log
        self.process = subprocess.Popen(  # its own process group: the engine's processes end with it (kill)
            command, stdout=log.open("w"), stderr=subprocess.STDOUT, env=engine_env(), start_new_session=True
        )
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            assert self.process.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(self.url + "/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        self.kill()
        raise AssertionError("the vLLM server did not answer in 15 minutes: " + log.read_text()[-3000:])

    def kill(self):
        """The server and the engine processes it started (vLLM's engine core outlives a killed server)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


# -- the checks ---------------------------------------------------------------------------------
def stored_episodes(run_dir: Path) -> list[tuple]:
    """(episode fields, its turns read through cogsim's store API) of every episode of a run."""
    import sqlite3

    from cogsim.store import open_store

    with sqlite3.connect(run_dir / "store.sqlite") as db:
        columns = "id, env_id, episode_index, seed, options, status, fault, error, history"
        rows = db.execute(f"SELECT {columns} FROM episodes ORDER BY id").fetchall()
    episodes = [dict(zip(columns.split(", "), row)) for row in rows]
    with open_store(run_dir) as store:
        return [(e, store.turns(e["id"])) for e in episodes]


def decoded(run_dir: Path, ref: str):
    """The stored frame's bytes decoded by Pillow, as a server decodes a data URL."""
    from PIL import Image

    from cogsim.store.frames import read_stored_frame

    image = Image.open(io.BytesIO(read_stored_frame(run_dir, ref, 64 << 20)))
    image.load()
    return image


def as_vllm_sends(image) -> np.ndarray:
    """The pixels vLLM hands its processor for a decoded frame: RGB as is; RGBA and other modes
    converted to RGB by vLLM's own rule (docs/fidelity.md, "the alpha band")."""
    from vllm.multimodal.image import convert_image_mode

    return np.asarray(convert_image_mode(image, "RGB"))


def prompts_of(run_dir: Path, episode: dict, turns: list) -> list[list]:
    """The conversation each stored turn's prompt was, rebuilt from the store with the episode's
    history policy. The system prompt is the env's at that turn (Cube Bench's reflection test changes
    it with the turn, and the store keeps the first): the env is replayed with the stored replies."""
    import json

    import cogsim
    from cogsim.agents.base import Message

    env = cogsim.make(episode["env_id"], **json.loads(episode["options"]))
    obs, _ = env.reset(seed=episode["seed"])
    policy = HistoryPolicy.parse(episode["history"] or "full")
    past: dict = {}
    prompts = []
    for turn in turns:
        assert obs["text"] == turn.prompt and len(obs["images"]) == len(turn.images), (episode, turn.turn)
        current = Message("user", turn.prompt, tuple(turn.images))
        seat = past.setdefault(turn.player, [])
        prompts.append(policy.messages(env.system_prompt, seat, current))
        seat.append((current, turn.response))
        obs = env.step(turn.response)[0]
    env.close()
    return prompts


def processor_prompt_tokens(processor, run_dir: Path, prompt: list) -> tuple[int, int]:
    """(prompt tokens, of which image tokens) the model's own processor makes of a conversation:
    its chat template, then the processor on that text and the decoded stored frames."""
    messages, images = [], []
    for message in prompt:
        if message.images:
            parts = [{"type": "image"} for _ in message.images] + [{"type": "text", "text": message.text}]
            images += [decoded(run_dir, ref).convert("RGB") for ref in message.images]
        else:
            parts = message.text
        messages.append({"role": message.role, "content": parts})
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    out = processor(text=text, images=images or None, add_special_tokens=False)
    ids = out["input_ids"][0]
    image_ids = {processor.image_token_id, processor.fake_image_token_id, processor.global_image_token_id}
    image_ids |= set(processor.row_col_ids)
    return len(ids), sum(i in image_ids for i in ids)
