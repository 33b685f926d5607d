"""How much memory this process can still have, for the checks before a coset table is built or
mapped: the least of the machine's available memory (MemAvailable), what its cgroup's limit leaves
(cgroup v1 or v2, the group and every group above it), and the room left under its address-space
limit (RLIMIT_AS, ``ulimit -v``), which a mapping counts whole. The kernel reclaims page cache
(a table file read before included) for all but the last, so page cache counts as free."""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Optional

from cogsim._untrusted import size_text

PROC_CGROUP = Path("/proc/self/cgroup")
CGROUP_ROOT = Path("/sys/fs/cgroup")
UNLIMITED = 1 << 60  # cgroup v1 writes "no limit" as a number near 2**63


def available() -> tuple[Optional[int], str]:
    """(bytes this process can still have, what sets that, in words); (None, "") where nothing
    can be read."""
    found: list[tuple[int, str]] = []
    machine = mem_available()
    if machine is not None:
        found.append((machine, f"this machine has {size_text(machine)} available"))
    group = cgroup_available()
    if group is not None:
        left, limit = group
        found.append((left, f"its cgroup allows {size_text(limit)} and leaves {size_text(left)}"))
    address = address_space_available()
    if address is not None:
        left, limit = address
        found.append(
            (left, f"its address space is limited to {size_text(limit)} (ulimit -v), leaving {size_text(left)}")
        )
    return min(found) if found else (None, "")


def mem_available() -> Optional[int]:
    """MemAvailable from /proc/meminfo: free memory plus the page cache the kernel can reclaim."""
    value = _meminfo_field(Path("/proc/meminfo"), "MemAvailable:")
    return None if value is None else value * 1024


def address_space_available() -> Optional[tuple[int, int]]:
    """(room left under RLIMIT_AS, the limit); None without a limit."""
    limit, _ = resource.getrlimit(resource.RLIMIT_AS)
    if limit == resource.RLIM_INFINITY:
        return None
    used = _meminfo_field(Path("/proc/self/status"), "VmSize:")
    return max(0, limit - (used or 0) * 1024), limit


def cgroup_available(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> Optional[tuple[int, int]]:
    """(what the tightest memory limit of this process's cgroup and the groups above it leaves,
    that limit); None where no limit is set or none can be read."""
    try:
        lines = proc_cgroup.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    tightest: Optional[tuple[int, int]] = None
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":  # cgroup v2 (in a hybrid layout it may hold no memory controller)
            group, files = root / path.lstrip("/"), ("memory.max", "memory.current", ("file",))
        elif "memory" in controllers.split(","):
            group, files = root / "memory" / path.lstrip("/"), _V1_FILES
        else:
            continue
        for folder in (group, *group.parents):
            found = _group_available(folder, *files)
            if found is not None and (tightest is None or found[0] < tightest[0]):
                tightest = found
            if folder in (root, root / "memory"):
                break
    return tightest


_V1_FILES = ("memory.limit_in_bytes", "memory.usage_in_bytes", ("total_cache", "cache"))


def _group_available(folder: Path, limit_file: str, usage_file: str, cache_keys: tuple) -> Optional[tuple[int, int]]:
    limit, usage = _number(folder / limit_file), _number(folder / usage_file)
    if limit is None or usage is None or limit >= UNLIMITED:
        return None
    cache = 0
    try:
        stat = dict(line.split()[:2] for line in (folder / "memory.stat").read_text().splitlines() if " " in line)
        cache = next((int(stat[key]) for key in cache_keys if key in stat), 0)
    except (OSError, ValueError):
        pass
    return max(0, limit - max(0, usage - cache)), limit


def _number(path: Path) -> Optional[int]:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if text == "max":
        return UNLIMITED
    return int(text) if text.isdigit() else None


def _meminfo_field(path: Path, name: str) -> Optional[int]:
    try:
        with open(path, encoding="ascii", errors="replace") as lines:
            for line in lines:
                if line.startswith(name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
