"""Run configuration: everything that decides a run's results, recorded in its store."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import cogsim
from cogsim._template import MAX_TEMPLATE_BYTES
from cogsim._untrusted import check_depth, file_content, load_json, read_file, shown
from cogsim.agents.base import parse_agent_spec
from cogsim.agents.history import HistoryPolicy
from cogsim.envs import file_options
from cogsim.envs.base import MAX_SEED
from cogsim.store.values import MAX_JSON_BYTES

SECRET_OPTIONS = frozenset({"api_key"})
ON_OVERFLOW = ("fail-episode", "drop-oldest")
# Settings a resume may change: they decide how the backend is reached, not what it answers.
RESUMABLE_SETTINGS = frozenset({"concurrency", "workers"})
# What a prompt may carry: a resume may narrow it to fit the model's context after a context_overflow
# fault (the change is recorded and the report lists it; turns stored before it keep what they saw).
BUDGET_SETTINGS = frozenset({"history", "max_images"})
RESUMABLE_AGENT_OPTIONS = frozenset(
    {
        "base_url",
        "api_key",
        "timeout_s",
        "max_retries",
        "backoff_s",
        "max_backoff_s",
        "concurrency",
        "max_response_bytes",
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


# Bounds of a run config (one from a run directory is untrusted): planning stays fast and small.
MAX_EPISODES = 1_000_000  # per task
MAX_TASKS = 10_000
MAX_AGENTS = 256
MAX_CONCURRENCY = 100_000
MAX_WORKERS = 4096
MAX_TURNS = 10_000_000
MAX_JSON_FILE_BYTES = 8 << 20  # a JSON file-valued option (a Cube Bench seed list)
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
        if not isinstance(self.env_id, str) or not self.env_id:
            raise ValueError(f"env_id must be an env id such as 'wilt/lite', got {shown(self.env_id)}")
        if (
            isinstance(self.episodes, bool)
            or not isinstance(self.episodes, int)
            or not 0 <= self.episodes <= MAX_EPISODES
        ):
            raise ValueError(f"episodes must be an integer in [0, {MAX_EPISODES}], got {shown(self.episodes)}")
        if not isinstance(self.options, dict) or not all(isinstance(k, str) for k in self.options):
            raise ValueError(f"options of {self.env_id} must be a dict with string keys, got {shown(self.options)}")
        check_depth(self.options, f"options of {self.env_id}")
        if self.agents is not None:
            _check_agents(self.agents, f"agents of {self.env_id}")


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
    preset: Optional[str] = None  # "paper:<benchmark>" when the tasks came from a paper preset
    version: str = cogsim.__version__

    def __post_init__(self):
        if not isinstance(self.tasks, list) or len(self.tasks) > MAX_TASKS:
            raise ValueError(f"tasks must be a list of at most {MAX_TASKS} tasks, got {shown(self.tasks)}")
        self.tasks = [t if isinstance(t, Task) else _task(t) for t in self.tasks]
        _check_agents(self.agents, "agents")
        if not self.agents:
            raise ValueError("agents: give at least one agent, e.g. 'oracle'")
        _check_integer("concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        _check_integer("workers", self.workers, 0, MAX_WORKERS, " (0: all cores)")
        _check_integer("max_turns", self.max_turns, 1, MAX_TURNS)
        if self.max_images is not None:
            _check_integer("max_images", self.max_images, 0, MAX_TURNS)
        if self.history is not None:
            if not isinstance(self.history, str):
                raise ValueError(f"history must be full, last:K or current, got {shown(self.history)}")
            HistoryPolicy.parse(self.history, self.max_images)
        if not isinstance(self.agent_options, dict) or not all(isinstance(k, str) for k in self.agent_options):
            raise ValueError(f"agent_options must be a dict with string keys, got {shown(self.agent_options)}")
        check_depth(self.agent_options, "agent_options")
        if not isinstance(self.imports, list) or not all(isinstance(name, str) for name in self.imports):
            raise ValueError(f"imports must be a list of module names, got {shown(self.imports)}")
        if not isinstance(self.version, str):
            raise ValueError(f"version must be a string, got {shown(self.version)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer in [0, {MAX_SEED}], got {shown(self.seed)}")
        last = self.seed + max((t.episodes for t in self.tasks), default=1) - 1
        if last > MAX_SEED:
            raise ValueError(
                f"seed {self.seed}: episode seeds run up to {last}, past {MAX_SEED}; choose a smaller --seed"
            )
        if self.preset is not None:
            from cogsim.report.papers import paper

            paper(self.preset)  # a clear error naming the known presets
        if self.on_overflow not in ON_OVERFLOW:
            raise ValueError(f"on_overflow must be one of {', '.join(ON_OVERFLOW)}, got {shown(self.on_overflow)}")

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
        """The config of a stored dict (ValueError naming what is wrong: a run directory is untrusted)."""
        return _from_fields(cls, data, "a run config", "")

    def dumps_within_bounds(self) -> None:
        """ValueError if the stored form would be larger than a store lets cogsim read back."""
        size = len(json.dumps(self.to_dict()))
        if size > MAX_JSON_BYTES:
            raise ValueError(
                f"the run config is {size:,} bytes (recorded file contents included), more than the "
                f"{MAX_JSON_BYTES:,} a store holds"
            )


def _task(data: Any) -> Task:
    return _from_fields(Task, data, "a task", "task ")


def _from_fields(cls, data: Any, what: str, prefix: str):
    """``cls(**data)`` for a dict read from a store: ValueError naming a wrong shape, an unknown or a
    missing setting."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} is a JSON object, got {shown(data)}")
    unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise ValueError(f"unknown {prefix}setting(s) {', '.join(map(shown, unknown))}")
    try:
        return cls(**data)
    except TypeError as error:  # a required setting missing
        raise ValueError(f"{prefix}{str(error).replace(f'{cls.__name__}.__init__() ', '')}") from None


def _check_agents(agents: Any, what: str) -> None:
    if not isinstance(agents, list) or len(agents) > MAX_AGENTS:
        raise ValueError(f"{what} must be a list of at most {MAX_AGENTS} agent specs, got {shown(agents)}")
    for spec in agents:
        parse_agent_spec(spec)


def _check_integer(name: str, value: Any, low: int, high: int, note: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}]{note}, got {shown(value)}")


def record_file_options(config: RunConfig) -> RunConfig:
    """The config with the content of every file an env option names (``TextEnv.file_options``) in
    place of its path, read now: the caller named the file. The run records the content, so a
    resume never opens a path that a run directory names."""
    tasks = []
    for task in config.tasks:
        options = dict(task.options)
        for name, kind in file_options(task.env_id).items():
            value = options.get(name)
            if isinstance(value, (str, os.PathLike)):
                what = f"{task.env_id} option {name}"
                if kind == "json":
                    options[name] = load_json(read_file(value, what, MAX_JSON_FILE_BYTES), what, MAX_JSON_FILE_BYTES)
                else:
                    options[name] = file_content(value, what, MAX_TEMPLATE_BYTES)
        tasks.append(dataclasses.replace(task, options=options))
    recorded = dataclasses.replace(config, tasks=tasks)
    recorded.dumps_within_bounds()
    return recorded


def refuse_file_paths(config: RunConfig, source: str) -> None:
    """For a config read from a run directory: ValueError if an env option still names a file (a
    path), which cogsim would have to open (runs record file contents instead)."""
    for index, task in enumerate(config.tasks):
        for name in file_options(task.env_id):
            value = task.options.get(name)
            if isinstance(value, str):
                raise ValueError(
                    f"{source}: task {index} ({task.env_id}) names the file {shown(value)} for its option {name}; "
                    "cogsim never opens a path that a run directory names (runs record the file's content): start "
                    "the run again in a new directory"
                )


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
        elif key in RESUMABLE_SETTINGS or key in BUDGET_SETTINGS:
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
