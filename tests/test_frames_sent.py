"""Frames as a model gets them: the one encoder (PNG by the core, JPEG by Pillow with a release's
settings), each distinct frame encoded and stored once, the bytes a backend sends equal to the bytes the
store keeps, and runs made before (PNG refs named by their pixels) resumed, reported and exported."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import cogsim
from cogsim import _core
from cogsim.agents.base import Message, openai_messages
from cogsim.harness import RunConfig, Task, run
from cogsim.render import frames as sent_frames
from cogsim.render.frames import FrameEncoder, SentFrame, as_sent, check_frame_format, encode_frames
from cogsim.report import build_report
from cogsim.store import export_jsonl, export_sft, open_store
from cogsim.store.frames import media_type, read_stored_frame
from cogsim.store.rows import LOOP_SQL
from cogsim.store.sqlite import Store
from cogsim.store.values import is_image_ref
from reply_server import ReplyServer

JPEG_88 = {"format": "jpeg", "quality": 88, "optimize": True}
OLD_RUN = Path(__file__).parent / "data" / "run_before_jpeg"
RNG = np.random.default_rng(11)


def picture(seed: int, shape=(40, 60, 3)) -> np.ndarray:
    """A frame with flat areas and noise, as drawn frames are."""
    frame = np.full(shape, 30 + seed % 200, np.uint8)
    h, w = shape[0] // 2, shape[1] // 2
    frame[:h, :w] = np.random.default_rng(seed).integers(0, 256, (h, w, shape[2]), dtype=np.uint8)
    return frame


def pillow_jpeg(frame: np.ndarray, quality: int, optimize: bool) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).convert("RGB").save(buffer, "JPEG", quality=quality, optimize=optimize)
    return buffer.getvalue()


# -- formats and the one encoder -------------------------------------------------------------------
def test_frame_formats_are_checked_and_named():
    assert check_frame_format({"format": "png"}) == {"format": "png"}
    assert check_frame_format({"format": "jpeg", "quality": 85}) == {"format": "jpeg", "quality": 85, "optimize": False}
    bad = [
        ("png", "must be {'format': 'png'}"),
        ({"format": "webp"}, "got format 'webp'"),
        ({"format": "png", "quality": 9}, "no settings"),
        ({"format": "jpeg"}, r"quality must be an integer in \[1, 100\]"),
        ({"format": "jpeg", "quality": 101}, "quality"),
        ({"format": "jpeg", "quality": True}, "quality"),
        ({"format": "jpeg", "quality": 80, "optimize": 1}, "optimize must be True or False"),
        ({"format": "jpeg", "quality": 80, "subsampling": 0}, "takes quality and optimize"),
    ]
    for value, message in bad:
        with pytest.raises(ValueError, match=message):
            check_frame_format(value)
    assert (
        sent_frames.describe(JPEG_88) == "JPEG quality 88 (optimized)"
        and sent_frames.describe({"format": "png"}) == "PNG"
    )
    assert (sent_frames.media_type(JPEG_88), sent_frames.file_suffix(JPEG_88)) == ("image/jpeg", ".jpg")


def test_png_is_the_cores_lossless_encoding_in_the_frames_order():
    frames = [picture(1), picture(2, (16, 8, 4)), picture(3)]
    encoded = encode_frames(frames)
    assert encoded == [bytes(_core.encode_png(f[None], 1)[0]) for f in frames]
    for frame, data in zip(frames, encoded):
        assert np.array_equal(sent_frames.decode_frame(data), frame)
    assert encode_frames([]) == []
    with pytest.raises(ValueError, match=r"frame must be a uint8 \(H, W, 3\) or \(H, W, 4\) array"):
        encode_frames([np.zeros((4, 4), np.uint8)])


def test_jpeg_is_pillows_encoder_with_exactly_the_settings_given():
    frame = picture(4)
    for quality, optimize in ((88, True), (85, True), (92, True), (75, False)):
        (data,) = encode_frames([frame], {"format": "jpeg", "quality": quality, "optimize": optimize})
        assert data == pillow_jpeg(frame, quality, optimize)
    rgba = np.dstack([frame, np.full(frame.shape[:2], 7, np.uint8)])  # convert("RGB") drops the alpha
    assert encode_frames([rgba], JPEG_88) == encode_frames([frame], JPEG_88)


# -- each distinct frame encoded once ---------------------------------------------------------------
def test_a_frame_seen_before_is_not_encoded_again():
    encoder = FrameEncoder(threads=2)
    frame, other = picture(5), picture(6)
    first = encoder.frames([frame], JPEG_88)[0]
    assert encoder.frames([frame], JPEG_88)[0] is first  # the same array: the same SentFrame
    again = encoder.frames([frame.copy()], JPEG_88)[0]  # equal pixels: the bytes already made
    assert again is not first and (again.data, again.key) == (first.data, first.key)
    assert encoder.frames([other], JPEG_88)[0].data != first.data
    as_png = encoder.frames([frame], {"format": "png"})[0]  # the same pixels sent another way
    assert as_png.data[:8] == b"\x89PNG\r\n\x1a\n" and as_png.suffix == ".png"
    assert encoder.encoded == 3
    assert first.data == pillow_jpeg(frame, 88, True) and first.key == hashlib.sha256(first.data).hexdigest()
    assert first.data_url() == "data:image/jpeg;base64," + base64.b64encode(first.data).decode()
    assert np.array_equal(np.asarray(first), frame) and first.shape == frame.shape
    encoder.close()


def test_an_inline_encoder_encodes_in_the_calling_thread_with_the_same_bytes():
    pooled, inline = FrameEncoder(threads=2), FrameEncoder(inline=True)
    frames = [picture(5), picture(6), picture(5)]
    started = inline.frames(frames, eager=False)
    for sent in started:
        sent.start()
        assert sent._future.done()  # done when start returns: no thread took it
    assert inline._pool is None and inline.encoded == 2  # the repeated frame found again
    expected = pooled.frames(frames)
    assert [(s.data, s.key) for s in started] == [(s.data, s.key) for s in expected]
    pooled.close()
    inline.close()


def test_a_frame_shown_after_another_has_the_bytes_of_its_pixels():
    """frames(after=...) takes unchanged bands from the frame shown before in the same place: the bytes
    are still those of the pixels, for a frame of another size after it too, and a frame never asked
    for is not kept as the one before."""
    encoder = FrameEncoder(threads=1, inline=True)
    rng = np.random.default_rng(3)
    first = rng.integers(0, 256, (64, 448, 4), dtype=np.uint8)
    second = first.copy()
    second[20:30, 100:140] = 7
    third = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    shown = encoder.frames([first])
    for pixels in (second, third):
        shown = encoder.frames([pixels], after=shown)
        assert shown[0].data == encode_frames([pixels])[0]
    lazy = encoder.frames([first], eager=False)
    later = encoder.frames([second], after=lazy)
    assert later[0]._after is None


def test_frames_that_differ_only_between_the_rows_the_digest_samples_are_each_encoded():
    encoder = FrameEncoder(threads=1)
    frame = picture(5)
    for row in (1, 7, frame.shape[0] - 1):  # rows the digest leaves out (it takes every eighth from 0)
        changed = frame.copy()
        changed[row, 3, 0] ^= 1
        assert _core.frame_digest(changed) == _core.frame_digest(frame)
        sent, original = encoder.frames([changed, frame])
        assert sent.data == encode_frames([changed])[0] != original.data == encode_frames([frame])[0]
    assert encoder.encoded == 4
    encoder.close()


@pytest.mark.timeout(60)
def test_a_frame_started_from_many_threads_at_once_is_encoded_by_one_work(monkeypatch):
    """A frame is started by the runner and, when an equal frame finds it, by the encoder's own
    threads: however they interleave, one work encodes it. (Two works of one frame deadlocked a full
    pool: the second found the first among the earlier frames and waited on itself.) The queuing
    is slowed here so that every thread asks while the first is still queuing."""
    from concurrent.futures import ThreadPoolExecutor

    submit, works = ThreadPoolExecutor.submit, []

    def slow_submit(pool, *args, **kwargs):
        works.append(args)
        future = submit(pool, *args, **kwargs)
        time.sleep(0.01)
        return future

    monkeypatch.setattr(ThreadPoolExecutor, "submit", slow_submit)
    encoder = FrameEncoder(threads=2)
    frame = picture(7)
    (sent,) = encoder.frames([frame], JPEG_88, eager=False)
    barrier = threading.Barrier(8)
    starters = [threading.Thread(target=lambda: (barrier.wait(), sent.start())) for _ in range(8)]
    for starter in starters:
        starter.start()
    for starter in starters:
        starter.join()
    assert len(works) == 1 and sent.data == pillow_jpeg(frame, 88, True)
    copies = encoder.frames([frame.copy() for _ in range(16)], JPEG_88)
    assert {copy.key for copy in copies} == {sent.key} and encoder.encoded == 1
    encoder.close()


def test_frames_not_needed_yet_are_encoded_only_when_asked_for():
    encoder = FrameEncoder(threads=1)
    lazy = encoder.frames([picture(7)], eager=False)[0]
    encoder.close()
    assert encoder.encoded == 0
    assert lazy.data == encode_frames([picture(7)])[0] and encoder.encoded == 1
    encoder.close()


def test_equal_frames_handed_in_at_once_are_encoded_once():
    encoder = FrameEncoder(threads=4)
    copies = [picture(8) for _ in range(40)]
    sent = []
    workers = [threading.Thread(target=lambda c=c: sent.extend(encoder.frames([c], JPEG_88))) for c in copies]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({frame.data for frame in sent}) == 1 and encoder.encoded == 1
    encoder.close()


def test_the_frames_kept_for_finding_repeats_are_bounded():
    frame = picture(9)
    encoder = FrameEncoder(threads=1, cache_bytes=4 * frame.nbytes)
    first = encoder.frames([frame])[0].data
    for seed in range(10, 30):
        assert encoder.frames([picture(seed)])[0].data
    assert encoder._cached_bytes <= 4 * frame.nbytes
    assert encoder.frames([frame.copy()])[0].data == first  # forgotten by now: encoded again, to the same bytes
    assert encoder.encoded == 22
    encoder.close()


def test_messages_carry_the_bytes_they_are_sent_as():
    frame = picture(10)
    jpeg = FrameEncoder(threads=1).frames([frame], JPEG_88)[0]
    (wire,) = openai_messages([Message("user", "look", (jpeg, frame))])
    urls = [part["image_url"]["url"] for part in wire["content"][:2]]
    assert urls[0] == jpeg.data_url() and urls[1].startswith("data:image/png;base64,")  # a plain array: PNG
    assert isinstance(as_sent(frame), SentFrame) and as_sent(jpeg) is jpeg


# -- the store keeps the bytes that were sent ------------------------------------------------------
def test_the_store_files_each_frame_once_as_the_file_it_was_sent_as(tmp_path):
    jpeg = FrameEncoder(threads=1).frames([picture(11)], JPEG_88)[0]
    with Store(tmp_path) as store:
        ref = store.put_image(jpeg)
        assert ref == f"images/{jpeg.key[:2]}/{jpeg.key}.jpg" and is_image_ref(ref)
        path = tmp_path / ref
        written = path.stat()
        assert store.put_image(jpeg) == ref and store.put_encoded(ref, b"never written") == ref  # once a session
        assert store.put_image(picture(12)).endswith(".png")  # a plain array goes as PNG
        for bad in ("images/ab/cd.jpg", f"images/zz/{jpeg.key}.jpg", f"images/{jpeg.key[:2]}/{jpeg.key}.jpeg", "../x"):
            with pytest.raises(ValueError, match="an image reference is"):
                store.put_encoded(bad, b"")
    with Store(tmp_path) as store:  # a later session finds the file holding those bytes there and leaves it
        assert store.put_encoded(ref, lambda: jpeg.data) == ref
    assert path.read_bytes() == jpeg.data and path.stat().st_ino == written.st_ino
    assert read_stored_frame(tmp_path, ref, 1 << 20) == jpeg.data and media_type(ref) == "image/jpeg"


def test_a_stored_frame_must_be_the_file_its_name_says(tmp_path):
    png = encode_frames([picture(13)])[0]
    key = "ab" + "0" * 62
    (tmp_path / "images" / "ab").mkdir(parents=True)
    (tmp_path / "images" / "ab" / f"{key}.jpg").write_bytes(png)
    with pytest.raises(ValueError, match="is not a JPEG file"):
        read_stored_frame(tmp_path, f"images/ab/{key}.jpg", 1 << 20)
    (tmp_path / "images" / "ab" / f"{key}.png").write_bytes(b"\xff\xd8\xff\xe0")
    with pytest.raises(ValueError, match="is not a PNG file"):
        read_stored_frame(tmp_path, f"images/ab/{key}.png", 1 << 20)
    for bad in (f"images/ab/{key}.gif", f"images/ab/{key}.JPG", "images/ab/../../etc/passwd"):
        with pytest.raises(ValueError, match="is not the content key of a stored frame"):
            read_stored_frame(tmp_path, bad, 1 << 20)
        with pytest.raises(ValueError, match="is not the content key of a stored frame"):
            media_type(bad)


def test_a_link_for_an_image_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "run" / "images").mkdir(parents=True)
    jpeg = FrameEncoder(threads=1).frames([picture(14)], JPEG_88)[0]
    (tmp_path / "run" / "images" / jpeg.key[:2]).symlink_to(elsewhere)
    with Store(tmp_path / "run") as store, pytest.raises(ValueError, match="symbolic link or not a folder"):
        store.put_image(jpeg)
    assert not any(elsewhere.iterdir())


# -- the model loop ----------------------------------------------------------------------------------
def test_a_run_stores_the_release_jpegs_once_and_records_how_they_were_sent(tmp_path):
    run(RunConfig([Task("maze3d/nav", 2, {"size": 3})], ["random"], seed=3), tmp_path)
    with open_store(tmp_path) as store:
        refs = [ref for (images,) in store.query("SELECT images FROM turns") for ref in json.loads(images)]
        loops = [json.loads(loop) for (loop,) in store.query(f"SELECT {LOOP_SQL} FROM episodes")]
        episodes = store.episodes(("done",))
    assert refs and all(ref.endswith(".jpg") for ref in refs)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "images").rglob("*") if p.is_file())
    assert files == sorted(set(refs))  # each distinct frame written once, nothing else
    for ref in set(refs):
        data = (tmp_path / ref).read_bytes()
        assert hashlib.sha256(data).hexdigest() == Path(ref).stem and data[:3] == b"\xff\xd8\xff"
    assert {json.dumps(loop["frames"], sort_keys=True) for loop in loops} == {
        json.dumps({"look": "release", "path": "cpu", "gl_renderer": None, "sent": JPEG_88}, sort_keys=True)
    }
    assert all(e["look"] == "release" and e["frames"] == JPEG_88 and e["show_goal"] is False for e in episodes)
    # the first frame of each episode is the release's picture of its first state, as the release sends it
    env = cogsim.make("maze3d/nav", size=3)
    first = env.reset(seed=3)[0]["images"][0]
    assert f"images/{hashlib.sha256(encode_frames([first], JPEG_88)[0]).hexdigest()[:2]}" in {r[:9] for r in refs}


def test_a_model_gets_the_bytes_the_store_keeps(tmp_path):
    server = ReplyServer(lambda body: "Thought: go\nAction: turn_left")
    try:
        config = RunConfig(
            [Task("maze3d/nav", 1, {"size": 3})],
            ["openai:m"],
            max_turns=3,
            agent_options={"base_url": server.url, "timeout_s": 10},
        )
        run(config, tmp_path)
    finally:
        server.close()
    with open_store(tmp_path) as store:
        stored = [json.loads(images) for (images,) in store.query("SELECT images FROM turns ORDER BY turn")]
    for body, refs in zip(server.requests, stored):
        urls = [
            p["image_url"]["url"]
            for m in body["messages"]
            if isinstance(m["content"], list)
            for p in m["content"]
            if p["type"] == "image_url"
        ]
        prefix = "data:image/jpeg;base64,"
        assert urls and all(url.startswith(prefix) for url in urls)
        assert base64.b64decode(urls[-1][len(prefix) :]) == (tmp_path / refs[-1]).read_bytes()


def test_a_run_made_before_jpeg_frames_resumes_reports_and_exports(tmp_path):
    old = tmp_path / "run"
    shutil.copytree(OLD_RUN, old, ignore=shutil.ignore_patterns("README.md", "make.py"))
    before = {p.relative_to(old).as_posix() for p in (old / "images").rglob("*.png")}
    summary = run(None, old, resume=True)
    assert summary.statuses == {"done": 3}
    with open_store(old) as store:
        refs = [
            ref for (images,) in store.query("SELECT images FROM turns ORDER BY rowid") for ref in json.loads(images)
        ]
    assert before <= set(refs) and any(r.endswith(".jpg") for r in refs)  # the old PNG refs stay, new turns JPEG
    assert all(is_image_ref(r) for r in refs)
    report = build_report(old).markdown()
    # the episodes finished today: pairs' text board and the maze in the release's look, sent as JPEG
    assert (
        "Frames: the release's pictures, drawn on the CPU, sent as JPEG quality 85 (optimized) (2 episodes)" in report
    )
    assert "the release's pictures, drawn on the CPU, sent as JPEG quality 88 (optimized) (1 episodes)" in report
    assert export_jsonl(old, tmp_path / "run.jsonl") == 3
    assert export_sft(old, tmp_path / "sft.jsonl") >= 1
    paths = [
        part["image"]
        for line in (tmp_path / "sft.jsonl").read_text().splitlines()
        for message in json.loads(line)["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image"
    ]
    assert {Path(p).suffix for p in paths} == {".png", ".jpg"} and all(Path(p).is_file() for p in paths)
