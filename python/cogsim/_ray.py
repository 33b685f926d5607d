"""Connecting to a Ray cluster (the optional extra ``cogsim[ray]``; nothing else needs Ray).

An address is ``auto`` (the cluster this machine belongs to: ``$RAY_ADDRESS``, else the one that
``ray start`` recorded here), ``HOST:PORT`` of a cluster's head, or a ``ray://HOST:PORT`` client
address. Ray itself waits a long while for an address where no cluster answers; ``connect`` checks
first and fails at once with a message that says what to do.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from pathlib import Path
from typing import Any, Optional

from cogsim._untrusted import read_text_file

INSTALL_HINT = "pip install 'cogsim[ray]'"


class ClusterUnavailable(ValueError):
    """No Ray cluster answers at the address given (or Ray is not installed)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable(f"running on a Ray cluster needs Ray: {INSTALL_HINT}") from None
    return ray


def connect(address: str) -> Any:
    """The ``ray`` module, connected to the cluster at ``address`` (reused if already connected)."""
    global _connected
    ray = import_ray()
    resolved = resolve(address)
    if ray.is_initialized() and resolved == _connected:
        return ray
    check_reachable(resolved, address)
    if ray.is_initialized():
        ray.shutdown()
    options = {"logging_level": "WARNING", "log_to_driver": False, "configure_logging": False}
    if not _is_loopback(split_address(resolved)[0]):
        ray.init(address=resolved, **options)
    else:
        _init_on_loopback(ray, resolved, options)
    _connected = resolved
    return ray


_connected: Optional[str] = None  # the address this process is connected to


def resolve(address: str) -> str:
    if not isinstance(address, str) or not address.strip():
        raise ClusterUnavailable("--ray needs an address: auto, HOST:PORT or ray://HOST:PORT")
    address = address.strip()
    if address != "auto":
        return address
    found = os.environ.get("RAY_ADDRESS") or _recorded_address()
    if not found or found == "auto":
        raise ClusterUnavailable(
            "--ray auto: no Ray cluster is running on this machine; start one with `ray start --head` "
            "(and `ray start --address HEAD:PORT` on the other nodes), or give the head's address HOST:PORT"
        )
    return found


def _recorded_address() -> str:
    """The address ``ray start`` wrote on this machine for later drivers (empty if none). The file
    lies in a folder every user can write (/tmp/ray): it is read only if it is a regular file, a
    short one, without blocking (a FIFO planted there cannot stall the driver)."""
    for folder in (Path(tempfile.gettempdir()) / "ray", Path("/tmp/ray")):
        try:
            return read_text_file(folder / "ray_current_cluster", "the recorded Ray address", 4096).strip()
        except ValueError:
            continue
    return ""


def check_reachable(address: str, given: str) -> None:
    host, port = split_address(address)
    try:
        socket.create_connection((host, port), timeout=3).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ClusterUnavailable(
            f"--ray {given}: no Ray cluster answers at {host}:{port} ({reason}); start one with "
            "`ray start --head --port PORT`, or check the address (auto, HOST:PORT or ray://HOST:PORT)"
        ) from None


def _init_on_loopback(ray, address: str, options: dict) -> None:
    """Connect to a cluster whose nodes all listen on 127.0.0.1 (a local test cluster). Ray turns a
    loopback address into this machine's network address before connecting, where such a cluster
    does not listen, and then waits for it forever; its own switch for single-machine use
    (ENABLE_RAY_CLUSTER, read when a driver looks up its address) keeps the loopback address."""
    from ray._private import ray_constants

    switch = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(address=address, _node_ip_address="127.0.0.1", **options)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = switch


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


def split_address(address: str) -> tuple[str, int]:
    bare = address[len("ray://") :] if address.startswith("ray://") else address
    host, _, port = bare.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterUnavailable(f"--ray {address!r}: give auto, HOST:PORT or ray://HOST:PORT")
    return host.strip("[]"), int(port)
