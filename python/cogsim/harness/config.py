"""Run configuration: everything that decides a run's results, recorded in its store."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

import cogsim
from cogsim.agents.base import parse_agent_spec
from cogsim.harness.history import HistoryPolicy


SECRET_OPTIONS = frozenset({"api_key"})
ON_OVERFLOW = ("fail-episode", "drop-oldest")
# Settings a resume may change: they decide how the backend is reached, not what it answers.
RESUMABLE_SETTINGS = frozenset({"concurrency", "workers"})
RESUMABLE_AGENT_OPTIONS = frozenset({
    "base_url", "api_key", "timeout_s", "max_retries", "backoff_s", "max_backoff_s", "concurrency",
    # vLLM engine limits
    "max_model_len", "gpu_memory_utilization", "max_num_seqs", "max_num_batched_tokens", "tensor_parallel_size",
    "pipeline_parallel_size", "enforce_eager", "swap_space", "cpu_offload_gb", "disable_log_stats",
})


@dataclass
class Task:
    """Episodes of one env id with one set of options, played by each agent group."""

    env_id: str
    episodes: int
    options: dict = field(default_factory=dict)
    agents: Optional[list] = None  # None: the run's agents

    def __post_init__(self):
        if not isinstance(self.episodes, int) or self.episodes < 0:
            raise ValueError(f"episodes must be a non-negative integer, got {self.episodes!r}")


@dataclass
class RunConfig:
    tasks: list
    agents: list
    seed: int = 0
    concurrency: int = 64
    workers: int = 1
    history: Optional[str] = None
    max_images: Optional[int] = None
    agent_options: dict = field(default_factory=dict)
    max_turns: int = 1000
    imports: list = field(default_factory=list)
    on_overflow: str = "fail-episode"
    version: str = cogsim.__version__

    def __post_init__(self):
        self.tasks = [t if isinstance(t, Task) else Task(**t) for t in self.tasks]
        if not self.agents:
            raise ValueError("agents: give at least one agent, e.g. 'oracle'")
        for spec in self.agents + [a for t in self.tasks for a in (t.agents or [])]:
            parse_agent_spec(spec)
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ValueError(f"concurrency must be a positive integer, got {self.concurrency!r}")
        if not isinstance(self.workers, int) or self.workers < 0:
            raise ValueError(f"workers must be a non-negative integer (0: all cores), got {self.workers!r}")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"max_turns must be a positive integer, got {self.max_turns!r}")
        if self.history is not None:
            HistoryPolicy.parse(self.history, self.max_images)
        if self.on_overflow not in ON_OVERFLOW:
            raise ValueError(f"on_overflow must be one of {', '.join(ON_OVERFLOW)}, got {self.on_overflow!r}")

    def to_dict(self) -> dict:
        """The JSON form stored with the run; secrets (API keys) are left out: a resumed run reads
        them from the environment (OPENAI_API_KEY)."""
        data = json.loads(json.dumps(asdict(self)))
        data["agent_options"] = {k: v for k, v in data["agent_options"].items() if k not in SECRET_OPTIONS}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RunConfig":
        return cls(**data)


def resumable_changes(stored: dict, new: dict) -> tuple[dict, list]:
    """(allowed changes {key: [old, new]}, names of changes a resume may not make)."""
    allowed, refused = {}, []
    for key in sorted(stored.keys() | new.keys()):
        old, value = stored.get(key), new.get(key)
        if old == value:
            continue
        if key == "agent_options":
            for option in sorted((old or {}).keys() | (value or {}).keys()):
                a, b = (old or {}).get(option), (value or {}).get(option)
                if a != b:
                    if option in RESUMABLE_AGENT_OPTIONS:
                        allowed[f"agent_options.{option}"] = [a, b]
                    else:
                        refused.append(f"agent_options.{option}")
        elif key in RESUMABLE_SETTINGS:
            allowed[key] = [old, value]
        elif key == "on_overflow" and old is None and value == "fail-episode":
            continue  # stored before the option existed: the same behaviour
        else:
            refused.append(key)
    return allowed, refused


def import_plugins(names: list) -> None:
    """Import modules that register extra envs or metrics: dotted module names or paths to .py files."""
    for name in names:
        if name.endswith(".py"):
            path = Path(name).resolve()
            if not path.exists():
                raise ValueError(f"--import: no such file {name!r}")
            module_name = f"cogsim_plugin_{path.stem}"
            if module_name in sys.modules or _loaded_from(path):
                continue
            spec = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        else:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise ValueError(f"--import: cannot import {name!r}: {exc}") from None


def _loaded_from(path: Path) -> bool:
    """Whether some module already came from this file (imported under its own name, say)."""
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if source and Path(source).resolve() == path:
            return True
    return False


def resolve_suites(names: list) -> list:
    """Env ids for SUITE arguments: an exact env id, or a family prefix ('wilt' = every 'wilt/...' id)."""
    known = cogsim.list_envs()
    resolved = []
    for name in names:
        if name in known:
            matches = [name]
        else:
            prefix = name.rstrip("/") + "/"
            matches = [env_id for env_id in known if env_id.startswith(prefix)]
        if not matches:
            raise ValueError(f"suite {name!r} matches no env id; known: {', '.join(known) or '(none)'}")
        resolved += [m for m in matches if m not in resolved]
    return resolved


def parse_option_values(pairs: list, field_name: str) -> dict[str, Any]:
    """KEY=VALUE strings; values read as JSON when they parse (numbers, true, lists), else as text."""
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{field_name}: expected KEY=VALUE, got {pair!r}")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return options
