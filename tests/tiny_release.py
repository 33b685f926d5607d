"""A tiny release for the tests of `cogsim assets`: two files, their manifest named by its environment
variable, and archives of them (of any member kinds) built on the spot."""

import hashlib
import io
import json
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cogsim import release_assets

FILES = {"game/assets/a.png": b"alpha-bytes", "game/assets/deep/b.png": b"beta-bytes-longer"}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def use_tiny_release(tmp_path, monkeypatch) -> Path:
    """A manifest of two files, a fresh cache, and no kidgym manifest; returns ``tmp_path``."""
    manifest = {
        "benchmark": "rngbench",
        "repository": "someone/release",
        "commit": COMMIT,
        "archive_url": f"https://github.com/someone/release/archive/{COMMIT}.tar.gz",
        "files": {p: {"sha256": hashlib.sha256(d).hexdigest(), "size": len(d)} for p, d in FILES.items()},
    }
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    monkeypatch.setenv(release_assets.MANIFEST_VARIABLE.format("RNGBENCH"), str(path))
    monkeypatch.setenv(release_assets.MANIFEST_VARIABLE.format("KIDGYM"), str(tmp_path / "absent.json"))
    monkeypatch.setenv("COGSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path


def installed_folder(tmp: Path) -> Path:
    return tmp / "cache" / "assets" / "rngbench" / COMMIT


@dataclass(frozen=True)
class Kind:
    type: bytes


def tar_archive(path: Path, members, mode="w:gz") -> Path:
    """members: (name, bytes) for files, or (name, Kind(TarInfo type)) for other kinds."""
    with tarfile.open(path, mode) as out:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if not isinstance(content, Kind):
                info.size = len(content)
                out.addfile(info, io.BytesIO(content))
            else:
                info.type = content.type
                info.linkname = "/etc/passwd" if content.type in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
                out.addfile(info)
    return path


def zip_archive(path: Path, members, links=()) -> Path:
    with zipfile.ZipFile(path, "w") as out:
        for name, content in members:
            out.writestr(name, content)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            out.writestr(info, "/etc/passwd")
    return path


def release_members(prefix="release-0123/"):
    return [(prefix + name, data) for name, data in FILES.items()]


def assert_refused(call, match: str, tmp: Path):
    with pytest.raises(ValueError, match=match) as refused:
        call()
    assert "\n" not in str(refused.value)
    assert not installed_folder(tmp).exists()
    leftovers = list((tmp / "cache" / "assets" / "rngbench").glob(".*")) if (tmp / "cache").exists() else []
    assert leftovers == []
    return str(refused.value)
