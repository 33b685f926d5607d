"""A small causal LM on the CPU for cogsim's training examples (``sft.py``, ``grpo.py``): token
log-probabilities and batched sampling that run a batch's shared prompt prefix once, LoRA adapters
on the top layers, and an OpenAI-compatible server that samples from the weights being trained.

Why the shared prefix: a benchmark's prompt is most of every sequence (cube/move-effect: about 520
prompt tokens before a 42-token answer), identical across a GRPO group and, up to the state, across
most SFT examples. On a CPU the time goes into those tokens, so every forward here runs the rows'
common prefix once, repeats its keys and values across the batch, and runs only the rest of each
row: the same numbers as running every row whole (``tests/e2e/test_sft_loop.py`` checks it),
several times less work. TRL's trainers run every row whole.
"""

from __future__ import annotations

import collections
import hashlib
import json
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional, Sequence

import torch
from transformers import DynamicCache

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def common_prefix(rows: Sequence[Sequence[int]]) -> int:
    """The length of the token prefix every row shares."""
    shortest = min(len(row) for row in rows)
    first = rows[0]
    for i in range(shortest):
        token = first[i]
        if any(row[i] != token for row in rows):
            return i
    return shortest


def decoder_and_head(model):
    """The decoder stack and the LM head of a causal LM, through a LoRA wrapper if there is one."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return base.model, base.lm_head


def _prefill(model, rows: Sequence[Sequence[int]], shared: int, pad_id: int):
    """Runs ``rows[0][:shared]`` once and every row's rest against it. Returns the decoder's hidden
    states of the rests (B, T, H), right-padded, the cache and the attention mask (B, shared + T)."""
    decoder, _ = decoder_and_head(model)
    cache = DynamicCache()
    if shared:
        decoder(input_ids=torch.tensor([list(rows[0][:shared])]), past_key_values=cache, use_cache=True)
        cache.batch_repeat_interleave(len(rows))
    width = max(len(row) for row in rows) - shared
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros(len(rows), shared + width, dtype=torch.long)
    mask[:, :shared] = 1
    for i, row in enumerate(rows):
        ids[i, : len(row) - shared] = torch.tensor(list(row[shared:]))
        mask[i, shared : len(row)] = 1
    positions = torch.arange(shared, shared + width).unsqueeze(0).expand(len(rows), -1)
    out = decoder(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=cache, use_cache=True)
    return out.last_hidden_state, cache, mask


def token_logprobs(model, rows: Sequence[Sequence[int]], targets: Sequence[Sequence[int]], pad_id: int = 0):
    """log p(row[t] | row[:t]) for every t in ``targets[i]`` of every row, one tensor per row (with
    gradients where the model has trainable weights). The prefix shared by all rows, up to the first
    target of any row, runs once."""
    first_target = min(min(t) for t in targets)
    shared = min(common_prefix(rows), first_target - 1)
    hidden, _, _ = _prefill(model, rows, shared, pad_id)
    _, head = decoder_and_head(model)
    out = []
    for i, (row, wanted) in enumerate(zip(rows, targets)):
        at = torch.tensor([t - 1 - shared for t in wanted])
        logits = head(hidden[i, at]).float()
        tokens = torch.tensor([row[t] for t in wanted])
        out.append(torch.log_softmax(logits, dim=-1).gather(1, tokens[:, None])[:, 0])
    return out


@dataclass
class Sampling:
    temperature: float = 1.0
    max_tokens: int = 64


def row_generator(seed: int, prompt: Sequence[int], occurrence: int) -> torch.Generator:
    """The draws of one request: a generator seeded by the server's seed, the prompt's tokens and
    how many times the server has answered that prompt before, so that what a request samples does
    not depend on which other requests shared its batch (a matter of timing). The logits still do,
    in their last bits: a batch's matrix products round differently from one row's, so in float32
    a draw close to a token's boundary can fall on its neighbour (about 1 reply of 24 tokens in 10)."""
    digest = hashlib.sha256(f"{seed}:{occurrence}:{','.join(map(str, prompt))}".encode()).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little") >> 1)


def sample_rows(probs: torch.Tensor, generators: Sequence[torch.Generator]) -> torch.Tensor:
    """One token a row by inverse transform sampling, each row with its own uniform draw."""
    uniforms = torch.cat([torch.rand(1, generator=g, dtype=torch.float64) for g in generators])
    cumulative = probs.double().cumsum(dim=-1)
    tokens = torch.searchsorted(cumulative, (uniforms * cumulative[:, -1])[:, None])[:, 0]
    return tokens.clamp(max=probs.shape[-1] - 1)


@torch.no_grad()
def generate(model, prompts: Sequence[Sequence[int]], sampling: Sampling, stop_ids: set, pad_id: int, generators):
    """Samples a completion for every prompt (greedy at temperature 0), all rows stepped together,
    row i drawing from ``generators[i]``. Returns the new tokens of each row, up to and without its
    stop token."""
    _, head = decoder_and_head(model)
    decoder, _ = decoder_and_head(model)
    shared = min(common_prefix(prompts), min(len(p) for p in prompts) - 1)
    hidden, cache, mask = _prefill(model, prompts, shared, pad_id)
    last = torch.tensor([len(p) - 1 - shared for p in prompts])
    logits = head(hidden[torch.arange(len(prompts)), last]).float()
    lengths = torch.tensor([len(p) for p in prompts])
    out: list[list[int]] = [[] for _ in prompts]
    done = [False] * len(prompts)
    for _ in range(sampling.max_tokens):
        if sampling.temperature > 0:
            probs = torch.softmax(logits / sampling.temperature, dim=-1)
            tokens = sample_rows(probs, generators)
        else:
            tokens = logits.argmax(dim=-1)
        for i, token in enumerate(tokens.tolist()):
            if not done[i]:
                if token in stop_ids:
                    done[i] = True
                else:
                    out[i].append(token)
        if all(done):
            break
        # every row takes its next position; a row's padding slots stay masked out
        mask = torch.cat([mask, torch.ones(len(prompts), 1, dtype=torch.long)], dim=1)
        step = decoder(
            input_ids=tokens[:, None],
            attention_mask=mask,
            position_ids=lengths[:, None],
            past_key_values=cache,
            use_cache=True,
        )
        lengths = lengths + 1
        logits = head(step.last_hidden_state[:, -1]).float()
    return out


class _Listener(ThreadingHTTPServer):
    # A held-out evaluation connects every episode at once; with the default backlog of 5 the
    # connections beyond it wait on SYN retries and the client's 30 s connect timeout fails them.
    request_queue_size = 1024


class PolicyServer:
    """OpenAI-compatible chat completions on loopback, sampled from ``model`` as it is now. Requests
    that arrive together (a GRPO group, a held-out evaluation) are answered by one batched
    ``generate``: the server gathers requests until none has come for ``gather_s`` seconds. Each
    request draws from its own generator (``row_generator``): the same seed gives the same replies
    whichever requests the timing put into one batch, up to the last bits of the batched logits."""

    def __init__(self, model, tokenizer, seed: int, gather_s: float = 0.05, max_batch: int = 64):
        self.model, self.tokenizer = model, tokenizer
        self.seed, self.answered = seed, collections.Counter()
        self.gather_s, self.max_batch = gather_s, max_batch
        self.stop_ids = {tokenizer.eos_token_id} | set(tokenizer.convert_tokens_to_ids(["<|im_end|>"]) or [])
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        self.requests: queue.Queue = queue.Queue()
        self.closed = threading.Event()
        self.prompt_tokens = self.completion_tokens = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer: Future = Future()
                server.requests.put((body, answer))
                payload = json.dumps(answer.result()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = _Listener(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.worker = threading.Thread(target=self._serve_batches, daemon=True)
        self.worker.start()

    def _serve_batches(self) -> None:
        while not self.closed.is_set():
            try:
                batch = [self.requests.get(timeout=0.2)]
            except queue.Empty:
                continue
            while len(batch) < self.max_batch:
                try:
                    batch.append(self.requests.get(timeout=self.gather_s))
                except queue.Empty:
                    break
            groups: dict = {}
            for body, answer in batch:
                sampling = Sampling(float(body.get("temperature") or 0.0), int(body.get("max_tokens") or 64))
                groups.setdefault((sampling.temperature, sampling.max_tokens), []).append((body, answer))
            for (temperature, max_tokens), members in groups.items():
                try:
                    self._answer(members, Sampling(temperature, max_tokens))
                except Exception as exc:  # noqa: BLE001 - the requests fail, the server goes on
                    for _, answer in members:
                        answer.set_exception(exc)

    def _answer(self, members: list, sampling: Sampling) -> None:
        prompts = []
        for body, _ in members:
            ids = self.tokenizer.apply_chat_template(body["messages"], add_generation_prompt=True, tokenize=True)
            prompts.append(list(ids["input_ids"] if hasattr(ids, "keys") else ids))
        generators = []
        for prompt in prompts:
            generators.append(row_generator(self.seed, prompt, self.answered[tuple(prompt)]))
            self.answered[tuple(prompt)] += 1
        completions = generate(self.model, prompts, sampling, self.stop_ids, self.pad_id, generators)
        for (body, answer), prompt, tokens in zip(members, prompts, completions):
            self.prompt_tokens += len(prompt)
            self.completion_tokens += len(tokens)
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            finish = "length" if len(tokens) >= sampling.max_tokens else "stop"
            usage = {"prompt_tokens": len(prompt), "completion_tokens": len(tokens)}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            answer.set_result(
                {
                    "id": "cmpl",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "policy"),
                    "choices": [choice],
                    "usage": usage,
                }
            )

    def close(self) -> None:
        self.closed.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.worker.join()


def add_lora(model, layers: int, rank: int):
    """LoRA adapters on every projection of the top ``layers`` decoder layers; everything else frozen,
    so a backward pass stops below them."""
    from peft import LoraConfig, get_peft_model

    total = model.config.num_hidden_layers
    config = LoraConfig(
        r=rank,
        lora_alpha=2 * rank,
        lora_dropout=0.0,
        target_modules=list(TARGET_MODULES),
        layers_to_transform=list(range(total - min(layers, total), total)),
    )
    return get_peft_model(model, config)


def save_merged(model, tokenizer, folder: Path) -> Path:
    """The adapters merged into the weights, saved as a plain model folder (what ``vllm:`` loads)."""
    merged = model.merge_and_unload() if hasattr(model, "merge_and_unload") else model
    merged.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def chat_tokens(tokenizer, messages: list[dict]) -> tuple[list[int], list[int]]:
    """A conversation as the chat template renders it, and the positions of the assistant's tokens
    (what the model wrote: the training targets). The template must render a conversation as a
    growing prefix of its longer renderings."""
    render = lambda part, **kw: tokenizer.apply_chat_template(part, tokenize=False, **kw)
    full = render(messages)
    spans = []  # character spans of the assistant's replies in ``full``
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            before = render(messages[:i], add_generation_prompt=True)
            if not full.startswith(before):
                raise ValueError("the chat template does not render the conversation as a growing prefix")
            spans.append((len(before), len(render(messages[: i + 1]))))
    encoded = tokenizer(full, add_special_tokens=False, return_offsets_mapping=True)
    targets = [
        t for t, (start, end) in enumerate(encoded["offset_mapping"]) if any(s <= start and end <= e for s, e in spans)
    ]
    if not targets or targets[0] == 0:
        raise ValueError("a conversation needs an assistant reply after its prompt")
    return list(encoded["input_ids"]), targets


def set_threads(threads: Optional[int]) -> int:
    """torch's intra-op threads: ``threads``, else one per core this process may use."""
    import os

    count = threads or len(os.sched_getaffinity(0))
    torch.set_num_threads(count)
    return count
