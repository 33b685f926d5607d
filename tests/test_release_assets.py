"""`cogsim assets`: installing a release's image files from an untrusted copy or archive (tiny generated
ones against a tiny manifest). Every refusal is one line, nothing is written outside the assets folder
and an installation is all or nothing."""

import os
import sqlite3
import tarfile

import httpx
import pytest

from cogsim import release_assets
from cogsim.cli import main
from tiny_release import (
    FILES,
    Kind,
    assert_refused,
    installed_folder,
    release_members,
    tar_archive,
    use_tiny_release,
    zip_archive,
)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    return use_tiny_release(tmp_path, monkeypatch)


def test_installs_from_a_tar_gz_zip_tar_and_folders(tiny):
    with pytest.raises(release_assets.AssetsMissing):
        release_assets.root("rngbench")
    extra = [("release-0123/README.md", b"ignored"), ("release-0123/game/assets/other.png", b"not in the manifest")]
    sources = [
        tar_archive(tiny / "r.tar.gz", release_members() + extra),
        zip_archive(tiny / "r.zip", release_members() + extra),
        tar_archive(tiny / "r.tar", release_members(prefix=""), mode="w"),
    ]
    checkout = tiny / "checkout"
    for name, data in FILES.items():
        (checkout / "top" / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / "top" / name).write_bytes(data)
    sources += [checkout / "top", checkout]  # the release itself, or the folder an archive unpacked into
    for source in sources:
        folder = release_assets.add("rngbench", source)
        assert folder == installed_folder(tiny) == release_assets.root("rngbench")
        written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        assert written == sorted(FILES)  # members not in the manifest are not written
        assert release_assets.read("rngbench", "game/assets/a.png") == FILES["game/assets/a.png"]
        assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]  # no staging left
    (row,) = release_assets.installed()
    assert row["installed"] and row["path"] == str(installed_folder(tiny)) and row["files"] == 2


@pytest.mark.parametrize(
    "name",
    ["../escape.png", "release-0123/../../escape.png", "/etc/escape.png", "release-0123/game/..\\x.png", "C:/x.png"],
)
def test_member_names_that_climb_out_are_refused(tiny, name):
    for archive in (
        tar_archive(tiny / "r.tar.gz", release_members() + [(name, b"x")]),
        zip_archive(tiny / "r.zip", release_members() + [(name, b"x")]),
    ):
        assert_refused(lambda: release_assets.add("rngbench", archive), "outside the archive", tiny)
    assert not (tiny / "escape.png").exists() and not (tiny.parent / "escape.png").exists()


@pytest.mark.parametrize(
    "kind, word",
    [
        (tarfile.SYMTYPE, "symbolic link"),
        (tarfile.LNKTYPE, "hard link"),
        (tarfile.CHRTYPE, "device"),
        (tarfile.BLKTYPE, "device"),
        (tarfile.FIFOTYPE, "FIFO"),
    ],
)
def test_links_devices_and_fifos_where_files_belong_are_refused(tiny, kind, word):
    members = release_members()[1:] + [("release-0123/game/assets/a.png", Kind(kind))]
    archive = tar_archive(tiny / "r.tar.gz", members)
    assert_refused(lambda: release_assets.add("rngbench", archive), word, tiny)
    above = [("release-0123/game/assets/deep", Kind(kind))] + release_members()
    archive = tar_archive(tiny / "above.tar.gz", above)
    assert_refused(lambda: release_assets.add("rngbench", archive), word, tiny)


def test_links_elsewhere_in_an_archive_are_ignored(tiny):
    archive = tar_archive(tiny / "r.tar.gz", release_members() + [("release-0123/docs/link", Kind(tarfile.SYMTYPE))])
    assert release_assets.add("rngbench", archive) == installed_folder(tiny)


def test_zip_symlinks_are_refused(tiny):
    archive = zip_archive(tiny / "r.zip", release_members()[1:], links=["release-0123/game/assets/a.png"])
    assert_refused(lambda: release_assets.add("rngbench", archive), "symbolic link", tiny)


def test_oversized_mismatching_missing_and_duplicate_members_are_refused(tiny):
    big = [("release-0123/game/assets/a.png", FILES["game/assets/a.png"] + b"!")] + release_members()[1:]
    for archive in (tar_archive(tiny / "big.tar.gz", big), zip_archive(tiny / "big.zip", big)):
        assert_refused(lambda: release_assets.add("rngbench", archive), "larger than the release's file", tiny)
    forged = [("release-0123/game/assets/a.png", b"ALPHA-BYTES")] + release_members()[1:]
    archive = tar_archive(tiny / "forged.tar.gz", forged)
    assert_refused(lambda: release_assets.add("rngbench", archive), "SHA-256", tiny)
    archive = tar_archive(tiny / "short.tar.gz", release_members()[1:])
    assert_refused(lambda: release_assets.add("rngbench", archive), "lacks 1 of the 2 files", tiny)
    twice = release_members() + release_members(prefix="other/")
    archive = tar_archive(tiny / "twice.tar.gz", twice)
    assert_refused(lambda: release_assets.add("rngbench", archive), "twice", tiny)


def test_oversized_archives_bombs_and_non_archives_are_refused(tiny, monkeypatch):
    archive = tar_archive(tiny / "r.tar.gz", release_members() + [("release-0123/zeros", bytes(1 << 20))])
    monkeypatch.setattr(release_assets.archive, "MAX_UNPACKED_BYTES", 1 << 19)
    assert_refused(lambda: release_assets.add("rngbench", archive), "unpacks to more than", tiny)
    monkeypatch.setattr(release_assets.install, "MAX_ARCHIVE_BYTES", 100)
    assert_refused(lambda: release_assets.add("rngbench", archive), "more than the 100 bytes allowed", tiny)
    monkeypatch.undo()
    monkeypatch.setenv("COGSIM_CACHE", str(tiny / "cache"))
    junk = tiny / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b not really gzip")
    assert_refused(lambda: release_assets.add("rngbench", junk), "not a readable", tiny)
    fifo = tiny / "pipe.tar.gz"
    os.mkfifo(fifo)
    assert_refused(lambda: release_assets.add("rngbench", fifo), "FIFO", tiny)


def test_folders_with_links_fifos_or_big_files_are_refused(tiny):
    root = tiny / "checkout"
    for name, data in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    target = root / "game/assets/a.png"
    outside = tiny / "outside.png"
    outside.write_bytes(FILES["game/assets/a.png"])
    target.unlink()
    target.symlink_to(outside)
    assert_refused(lambda: release_assets.add("rngbench", root), "symbolic link", tiny)
    target.unlink()
    os.mkfifo(target)
    assert_refused(lambda: release_assets.add("rngbench", root), "FIFO", tiny)
    target.unlink()
    target.write_bytes(FILES["game/assets/a.png"] * 2)
    assert_refused(lambda: release_assets.add("rngbench", root), "larger than the release's file", tiny)
    target.write_bytes(FILES["game/assets/a.png"])
    deep = root / "game/assets/deep"
    deep.rename(tiny / "deep")
    deep.symlink_to(tiny / "deep")
    assert_refused(lambda: release_assets.add("rngbench", root), "symbolic link", tiny)


def test_never_writes_through_a_link_in_the_assets_folder(tiny):
    elsewhere = tiny / "elsewhere"
    elsewhere.mkdir()
    (tiny / "cache" / "assets").mkdir(parents=True)
    (tiny / "cache" / "assets" / "rngbench").symlink_to(elsewhere)
    archive = tar_archive(tiny / "r.tar.gz", release_members())
    with pytest.raises(ValueError, match="symbolic link"):
        release_assets.add("rngbench", archive)
    assert list(elsewhere.iterdir()) == []


def test_a_changed_installed_file_is_missing_not_used(tiny):
    release_assets.add("rngbench", tar_archive(tiny / "r.tar.gz", release_members()))
    (installed_folder(tiny) / "game/assets/a.png").write_bytes(b"ALPHA-BYTES")
    with pytest.raises(release_assets.AssetsMissing, match="has changed"):
        release_assets.read("rngbench", "game/assets/a.png")
    (installed_folder(tiny) / "game/assets/a.png").unlink()
    with pytest.raises(release_assets.AssetsMissing) as missing:
        release_assets.root("rngbench")
    message = str(missing.value)
    assert "\n" not in message and "`cogsim assets add rngbench PATH`" in message
    assert "`cogsim assets fetch rngbench`" in message and "`--env-option look=cogsim`" in message


def serve(content: bytes, status: int = 200):
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "github.com":  # GitHub redirects archives to its download host
            return httpx.Response(302, headers={"location": "https://codeload.example/archive.tar.gz"})
        return httpx.Response(status, content=content)

    return httpx.MockTransport(handler)


def test_fetch_downloads_within_bounds_and_installs(tiny):
    archive = tar_archive(tiny / "r.tar.gz", release_members()).read_bytes()
    assert release_assets.fetch("rngbench", transport=serve(archive)) == installed_folder(tiny)
    assert release_assets.root("rngbench") == installed_folder(tiny)
    downloads = list((tiny / "cache" / "assets" / "rngbench").glob(".download-*"))
    assert downloads == []


@pytest.mark.parametrize(
    "transport, limit, match",
    [
        (serve(b"", status=404), 1 << 20, "HTTP 404"),
        (serve(bytes(4096)), 1000, "larger than the 1000 bytes allowed"),
        (serve(b"not an archive"), 1 << 20, "not a readable"),
    ],
)
def test_fetch_failures_are_one_line_naming_assets_add(tiny, transport, limit, match):
    message = assert_refused(
        lambda: release_assets.fetch("rngbench", transport=transport, max_bytes=limit), match, tiny
    )
    assert "cogsim assets add rngbench ARCHIVE" in message


def test_cli_add_list_and_errors(tiny, capsys):
    assert main(["assets", "list"]) == 0
    printed = capsys.readouterr().out
    assert "rngbench: someone/release at 0123456789ab, 2 files, not installed" in printed
    assert "kidgym" not in printed  # no kidgym manifest in this package
    archive = tar_archive(tiny / "r.tar.gz", release_members())
    assert main(["assets", "add", "rngbench", str(archive)]) == 0
    assert main(["assets", "list"]) == 0
    assert f"installed: {installed_folder(tiny)}" in capsys.readouterr().out
    assert main(["assets", "add", "rngbench", str(tiny / "nowhere")]) == 2
    assert main(["assets", "add", "chess", str(archive)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("cogsim: error: ") for line in errors)


def test_run_stops_before_the_first_episode_when_files_are_missing(tiny, capsys):
    out = tiny / "run"
    code = main(
        ["run", "pairs/single", "--env-option", "modality=image", "--env-option", "theme=noise", "--episodes", "1"]
        + ["--agent", "oracle", "--out", str(out), "--no-progress"]
    )
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "cogsim assets add rngbench PATH" in line and "--env-option look=cogsim" in line
    if (out / "store.sqlite").exists():
        with sqlite3.connect(out / "store.sqlite") as db:
            assert db.execute("SELECT COUNT(*) FROM episodes").fetchone() == (0,)
