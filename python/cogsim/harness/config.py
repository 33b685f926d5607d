"""Run configuration: everything that decides a run's results, recorded in its store."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import cogsim
from cogsim.agents.base import parse_agent_spec
from cogsim.agents.history import HistoryPolicy

SECRET_OPTIONS = frozenset({"api_key"})
ON_OVERFLOW = ("fail-episode", "drop-oldest")
# Settings a resume may change: they decide how the backend is reached, not what it answers.
RESUMABLE_SETTINGS = frozenset({"concurrency", "workers"})
RESUMABLE_AGENT_OPTIONS = frozenset(
    {
        "base_url",
        "api_key",
        "timeout_s",
        "max_retries",
        "backoff_s",
        "max_backoff_s",
        "concurrency",
        # vLLM engine limits
        "max_model_len",
        "gpu_memory_utilization",
        "kv_cache_memory_bytes",
        "max_num_seqs",
        "max_num_batched_tokens",
        "tensor_parallel_size",
        "pipeline_parallel_size",
        "enforce_eager",
        "swap_space",
        "cpu_offload_gb",
        "disable_log_stats",
    }
)


MAX_SEED = 2**32 - 1  # every env's seed; episode i of a task gets seed + i
REDACTED = "REDACTED"
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "cookie",
        "signature",
        "bearer",
        "sig",
    }
)


def redact_secrets(options: Any) -> Any:
    """Options with credentials removed: user:password in URLs, secret-looking query parameters and
    the values of secret-looking keys at any depth."""
    if isinstance(options, dict):
        return {
            k: REDACTED if _secret_name(k) and v not in (None, "") else redact_secrets(v) for k, v in options.items()
        }
    if isinstance(options, list):
        return [redact_secrets(v) for v in options]
    if isinstance(options, str) and "://" in options:
        return _redact_url(options)
    return options


def _secret_name(name: Any) -> bool:
    """Whether an option's name says it holds a credential ("api_key", "X-Api-Key", "access_token")."""
    return any(word in _SECRET_WORDS for word in re.split(r"[^a-z0-9]+", str(name).lower()))


def _redact_url(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = urlencode(
        [(k, REDACTED if _secret_name(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe=","
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


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
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer in [0, {MAX_SEED}], got {self.seed!r}")
        last = self.seed + max((t.episodes for t in self.tasks), default=1) - 1
        if last > MAX_SEED:
            raise ValueError(
                f"seed {self.seed}: episode seeds run up to {last}, past {MAX_SEED}; choose a smaller --seed"
            )
        if self.on_overflow not in ON_OVERFLOW:
            raise ValueError(f"on_overflow must be one of {', '.join(ON_OVERFLOW)}, got {self.on_overflow!r}")

    def to_dict(self) -> dict:
        """The JSON form stored with the run. Secrets are never stored: API keys are left out (a resumed
        run reads them from the environment, OPENAI_API_KEY), credentials in ``base_url`` and values of
        secret-looking keys in nested options (``extra_body``, headers) are replaced by ``REDACTED``."""
        data = json.loads(json.dumps(asdict(self)))
        data["agent_options"] = redact_secrets(
            {k: v for k, v in data["agent_options"].items() if k not in SECRET_OPTIONS}
        )
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RunConfig":
        return cls(**data)


def all_agents(config: "RunConfig") -> list:
    """Every agent spec the run uses: its agents and the tasks' own."""
    return list(config.agents) + [a for t in config.tasks for a in (t.agents or [])]


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
            if spec is None or spec.loader is None:
                raise ValueError(f"--import: {name!r} is not a Python module file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        else:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise ValueError(f"--import: cannot import {name!r}: {exc}") from None


def require_plugins(config: "RunConfig") -> None:
    """For a config read from a run directory: every env id must be known already. The modules the
    run imported are named in the store, but a run directory is untrusted, so cogsim never imports
    them itself; the user passes them with --import."""
    known = set(cogsim.list_envs())
    unknown = sorted({task.env_id for task in config.tasks} - known)
    if unknown:
        named = ", ".join(config.imports) or "(none recorded)"
        raise ValueError(
            f"the run plays env ids no loaded module registers ({', '.join(unknown)}); it was started with "
            f"--import {named}. cogsim never imports code named by a run directory: check that code, then pass "
            "--import MODULE yourself"
        )


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
