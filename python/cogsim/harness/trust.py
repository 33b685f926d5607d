"""Which runs this user created: a per-user key signs run configs (docs/security.md).

Credentials from the environment (``OPENAI_API_KEY``) go only to endpoints the user named: on the
command line of this invocation, or in a run they created on this machine. cogsim tells the latter
by a signature stored with the run: the HMAC-SHA256 of its config under a key only this user can
read, ``$COGSIM_CONFIG/run-key`` (default ``$XDG_CONFIG_HOME/cogsim`` or ``~/.config/cogsim``),
32 random bytes created with mode 0600 on first use. A run directory from anywhere else, or one
whose config was edited, carries no valid signature: a bare resume of it must name its endpoints
again (:func:`unconfirmed_endpoints`).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import warnings
from pathlib import Path
from typing import Any, Optional

from cogsim._untrusted import file_kind
from cogsim.agents import is_scripted, parse_agent_spec

KEY_NAME = "run-key"
KEY_BYTES = 32
SIGNATURE_PREFIX = "hmac-sha256:"


def config_dir() -> Path:
    root = os.environ.get("COGSIM_CONFIG")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base, "cogsim")


def sign(config: dict) -> Optional[str]:
    """The signature of a run config under this user's key (created on first use); None, with a
    warning, where no key can be kept (a read-only home): resuming the run then needs its endpoint again."""
    try:
        key = _key(create=True)
    except OSError as error:
        warnings.warn(
            f"cannot keep the run key in {config_dir()} ({error.strerror}); resuming this run will need its "
            "endpoint named again (--agent-option base_url=...)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    if key is None:  # removed again at once: another process's doing
        return None
    return SIGNATURE_PREFIX + hmac.new(key, _canonical(config), hashlib.sha256).hexdigest()


def verify(config: dict, signature: Any) -> bool:
    """Whether ``signature`` is this user's signature of ``config``."""
    if not isinstance(signature, str) or not signature.startswith(SIGNATURE_PREFIX):
        return False
    try:
        key = _key(create=False)
    except OSError:
        return False
    if key is None:
        return False
    expected = SIGNATURE_PREFIX + hmac.new(key, _canonical(config), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def _canonical(config: dict) -> bytes:
    return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _key(create: bool) -> Optional[bytes]:
    """This user's key: a regular file of KEY_BYTES bytes owned by the user, readable by no one else
    (ValueError otherwise, saying how to fix it); None if there is none and ``create`` is False.
    It is opened without blocking and without following a link: a FIFO there cannot stall a run."""
    path = config_dir() / KEY_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        if not create:
            return None
        return _create_key(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ValueError(
                f"the run key {path} is a symbolic link; cogsim uses only a regular file there: remove it to make "
                "a new one (your runs then need their endpoint again)"
            ) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(
                f"the run key {path} is {file_kind(info.st_mode)}, not a regular file: remove it to make a new one "
                "(your runs then need their endpoint again)"
            )
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ValueError(
                f"the run key {path} must be a regular file of yours that no one else can read (mode 600): fix it "
                f"with `chmod 600 {path}`, or remove it to make a new one (your runs then need their endpoint again)"
            )
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise ValueError(f"the run key {path} is damaged (not {KEY_BYTES} bytes): remove it to make a new one")
    return key


def _create_key(path: Path) -> Optional[bytes]:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # atomic; another process that made one first wins
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)
    return _key(create=False)


def endpoints(config) -> list[tuple[str, Optional[str], bool]]:
    """Where the run's model calls go: (what, URL or None, whether ``--agent-option base_url=`` on a
    bare resume names it again) for every model agent and every model judge of an env."""
    found: list[tuple[str, Optional[str], bool]] = []
    agents = list(config.agents) + [a for task in config.tasks for a in (task.agents or [])]
    for spec in dict.fromkeys(a for a in agents if not is_scripted(a)):
        kind, _ = parse_agent_spec(spec)
        url = config.agent_options.get("base_url") if kind == "openai" else None
        found.append((f"agent {spec}", url, kind == "openai"))
    for index, task in enumerate(config.tasks):
        judge = task.options.get("judge")
        if isinstance(judge, str) and not is_scripted(judge):
            options = task.options.get("judge_options")
            url = options.get("base_url") if isinstance(options, dict) else None
            found.append((f"the judge {judge} of task {index} ({task.env_id})", url, False))
    return found


def unconfirmed_endpoints(config, named_now: dict) -> list[tuple[str, Optional[str], bool]]:
    """The model calls of a run not signed by this user that this invocation did not name again:
    an OpenAI-compatible agent's own ``base_url`` (``named_now``: this invocation's agent options),
    and every other backend (a vLLM model, a model judge), which only the run's whole command given
    again confirms. Calls to the user's own default endpoint (no ``base_url``) need nothing."""
    unconfirmed = []
    for what, url, renamable in endpoints(config):
        if renamable and (url is None or "base_url" in named_now):
            continue
        unconfirmed.append((what, url, renamable))
    return unconfirmed
