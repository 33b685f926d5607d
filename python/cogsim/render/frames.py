"""How frames go to a model: the formats the releases send them in, the one encoder of the bytes a
model gets and a run stores, and the encoding of each distinct frame once, off the caller's thread.

An env says how its frames are sent with ``TextEnv.frame_format()``: ``{"format": "png"}`` (lossless:
the core's encoder, any PNG decoder gives the pixels back) or ``{"format": "jpeg", "quality": Q,
"optimize": B}`` (Pillow's encoder with exactly these settings, as a release that sends JPEG calls it:
the same bytes as the release's for the same pixels and the same Pillow). :func:`encode_frames` is the
one encoder; :class:`FrameEncoder` gives :class:`SentFrame` objects whose bytes are made in a pool of
threads (the core's PNG encoder and frame digest, Pillow's JPEG encoder and SHA-256 all run without the GIL),
each distinct frame (the same array again, or equal pixels in the same format) encoded and hashed once.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import threading
import weakref
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Optional, Sequence

import numpy as np
from PIL import Image

from cogsim import _core

PNG: dict = {"format": "png"}
FORMATS = ("png", "jpeg")
_MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg"}
_SUFFIXES = {"png": ".png", "jpeg": ".jpg"}
_ALLOWED = "{'format': 'png'} or {'format': 'jpeg', 'quality': 1..100, 'optimize': True|False}"


def check_frame_format(value: Any) -> dict:
    """``value`` as a frame format (a new dict); ValueError naming what is wrong and what is allowed."""
    if not isinstance(value, dict):
        raise ValueError(f"a frame format must be {_ALLOWED}, got {type(value).__name__}")
    kind = value.get("format")
    if kind == "png":
        if set(value) != {"format"}:
            raise ValueError(f"a PNG frame format has no settings, got {sorted(set(value) - {'format'})}")
        return dict(PNG)
    if kind == "jpeg":
        unknown = sorted(set(value) - {"format", "quality", "optimize"})
        quality, optimize = value.get("quality"), value.get("optimize", False)
        if unknown:
            raise ValueError(f"a JPEG frame format takes quality and optimize, got {unknown}")
        if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
            raise ValueError(f"a JPEG frame format's quality must be an integer in [1, 100], got {quality!r}")
        if not isinstance(optimize, bool):
            raise ValueError(f"a JPEG frame format's optimize must be True or False, got {optimize!r}")
        return {"format": "jpeg", "quality": quality, "optimize": optimize}
    raise ValueError(f"a frame format must be {_ALLOWED}, got format {kind!r}")


def media_type(frame_format: dict) -> str:
    """The MIME type of frames sent in ``frame_format`` ("image/png", "image/jpeg")."""
    return _MEDIA_TYPES[frame_format["format"]]


def file_suffix(frame_format: dict) -> str:
    """The file name suffix of frames sent in ``frame_format`` (".png", ".jpg")."""
    return _SUFFIXES[frame_format["format"]]


def describe(frame_format: dict) -> str:
    """``frame_format`` in words: "PNG", "JPEG quality 88 (optimized)"."""
    if frame_format.get("format") == "jpeg":
        return f"JPEG quality {frame_format['quality']}" + (" (optimized)" if frame_format.get("optimize") else "")
    return "PNG"


def _checked(frame: Any) -> np.ndarray:
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"frame must be a uint8 (H, W, 3) or (H, W, 4) array, got {frame.dtype} shape {frame.shape}")
    return np.ascontiguousarray(frame)


def encode_jpeg(frame: np.ndarray, quality: int, optimize: bool) -> bytes:
    """A frame as a release sends it in JPEG: ``Image.convert("RGB").save(buffer, "JPEG", quality=...,
    optimize=...)`` (an RGBA frame loses its alpha, as ``convert("RGB")`` drops it)."""
    rgb = frame if frame.shape[2] == 3 else np.ascontiguousarray(frame[..., :3])
    buffer = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buffer, format="JPEG", quality=quality, optimize=optimize)
    return buffer.getvalue()


def _encode_one(frame: np.ndarray, frame_format: dict) -> bytes:
    if frame_format["format"] == "jpeg":
        return encode_jpeg(frame, frame_format["quality"], frame_format["optimize"])
    return bytes(_core.encode_png(frame[None], 1)[0])


def encode_frames(frames: Sequence[Any], frame_format: dict = PNG, threads: int = 0) -> list[bytes]:
    """The bytes of ``frames`` (HxWx3 or HxWx4 uint8) sent in ``frame_format``: PNG by the core (frames
    of one shape in one call, over ``threads``, 0: all cores), JPEG by Pillow with the format's settings."""
    frame_format = check_frame_format(frame_format)
    checked = [_checked(frame) for frame in frames]
    if frame_format["format"] == "jpeg":
        return [_encode_one(frame, frame_format) for frame in checked]
    encoded: list[bytes] = [b""] * len(checked)
    by_shape: dict[tuple, list[int]] = {}
    for index, frame in enumerate(checked):
        by_shape.setdefault(frame.shape, []).append(index)
    for indices in by_shape.values():
        batch = checked[indices[0]][None] if len(indices) == 1 else np.stack([checked[i] for i in indices])
        for index, data in zip(indices, _core.encode_png(batch, threads)):
            encoded[index] = bytes(data)
    return encoded


def decode_frame(data: bytes) -> np.ndarray:
    """The pixels a decoder gives back from sent bytes (PNG: the frame exactly; JPEG: what a model sees)."""
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image)


# id of a frame -> (the frame, the frame it was drawn after, the rows where they can differ), held weakly
_CHANGED_ROWS: dict[int, tuple[weakref.ref, weakref.ref, tuple]] = {}


def note_changed_rows(frame: np.ndarray, before: np.ndarray, rows: Sequence[tuple[int, int]]) -> None:
    """Notes that ``frame`` equals ``before`` (the frame shown before it in the same place) outside
    ``rows`` ((start, end) pairs): an env that knows what it redrew says so, and the encoder then takes
    the PNG bands of the other rows from ``before``'s without reading them. Neither array may be
    changed afterwards (no frame handed to the encoder may)."""
    ident = id(frame)
    forget = lambda _, i=ident: _CHANGED_ROWS.pop(i, None)  # noqa: E731
    _CHANGED_ROWS[ident] = (weakref.ref(frame, forget), weakref.ref(before), tuple(rows))


def _changed_rows(frame: np.ndarray, before: np.ndarray) -> Optional[list[tuple[int, int]]]:
    """The rows noted for ``frame`` drawn after exactly ``before``, or None (nothing noted)."""
    noted = _CHANGED_ROWS.get(id(frame))
    if noted is None or noted[0]() is not frame or noted[1]() is not before:
        return None
    return list(noted[2])


def _format_key(frame_format: dict) -> tuple:
    return tuple(sorted(frame_format.items()))


class SentFrame:
    """A frame as a model gets it: the pixels an env drew (``pixels``), its ``frame_format``, the encoded
    bytes (``data``) and their SHA-256 (``key``, the name a run store files them under). The bytes come
    from the encoder's threads; asking for them waits until they are there. ``numpy.asarray`` of a
    SentFrame is its pixels."""

    __slots__ = ("pixels", "frame_format", "_future", "_start", "_url", "_after", "_bands", "__weakref__")

    def __init__(
        self,
        pixels: np.ndarray,
        frame_format: dict,
        start: Callable[["SentFrame"], Future],
        after: Optional["SentFrame"] = None,
    ):
        self.pixels = pixels
        self.frame_format = frame_format
        self._start = start
        self._future: Optional[Future] = None
        self._url: Optional[str] = None
        self._after = after  # the frame shown before it in its place, until this one is encoded
        self._bands: Any = None  # the core's bands of its PNG, for the frame shown after it

    def _begin(self) -> Future:
        future = self._future
        if future is None:
            future = self._start(self)  # an encoder's pool sets _future itself, before the work can run
            if self._future is None:
                self._future = future
        return self._future

    def start(self) -> None:
        """Starts encoding the frame, if it has not started, without waiting for it."""
        self._begin()

    @property
    def data(self) -> bytes:
        data: bytes = self._begin().result()[0]
        return data

    @property
    def key(self) -> str:
        key: str = self._begin().result()[1]
        return key

    @property
    def media_type(self) -> str:
        return media_type(self.frame_format)

    @property
    def suffix(self) -> str:
        return file_suffix(self.frame_format)

    @property
    def shape(self) -> tuple:
        return tuple(self.pixels.shape)

    def data_url(self) -> str:
        """The bytes as a data URL (``data:image/jpeg;base64,...``), made once."""
        if self._url is None:
            self._url = f"data:{self.media_type};base64," + base64.b64encode(self.data).decode("ascii")
        return self._url

    def __array__(self, dtype=None, copy=None):
        return self.pixels if dtype is None else self.pixels.astype(dtype)

    def __repr__(self) -> str:
        return f"SentFrame({self.pixels.shape}, {describe(self.frame_format)})"


class FrameEncoder:
    """Makes :class:`SentFrame` objects of an env's frames and encodes each distinct one once.

    ``frames(images, frame_format, after=...)`` returns at once; the encoding runs in a pool of ``threads``
    threads (0: one per core) unless ``eager=False``, when it runs the first time the bytes are asked
    for (frames replayed on resume, which a scripted agent never sends). A frame seen before is not
    encoded again: the same array object (with the same format) gives the same SentFrame, and equal
    pixels (found by a 64-bit digest of the shape and every eighth row, then compared whole) take the
    bytes already made. The frames kept for that comparison are bounded by ``cache_bytes`` of pixels,
    oldest dropped first. ``after``: the frames shown before these in the same places (an episode's
    previous observation): a PNG's bands equal to those in the same place of the frame before are taken
    from it, compared directly, not looked up (the bytes are the same either way). ``inline=True``: no
    pool, a frame is encoded in the thread that starts it (for a process that has one core to itself,
    where threads would only take turns on it)."""

    def __init__(self, threads: int = 0, cache_bytes: int = 64 << 20, inline: bool = False):
        self.threads = threads or os.cpu_count() or 1
        self.inline = inline
        self.cache_bytes = cache_bytes
        self._pool: Optional[ThreadPoolExecutor] = None
        self._lock = threading.Lock()
        # id of an env's array -> (the array, its format, its SentFrame), both held weakly
        self._by_id: dict[int, tuple[weakref.ref, tuple, weakref.ref]] = {}
        self._by_content: OrderedDict[tuple, list[SentFrame]] = OrderedDict()
        self._cached_bytes = 0
        self.encoded = 0  # frames actually encoded (the others were found again)

    def frames(
        self, images: Sequence[Any], frame_format: dict = PNG, eager: bool = True, after: Sequence[SentFrame] = ()
    ) -> tuple[SentFrame, ...]:
        frame_format = check_frame_format(frame_format)
        # Only a frame whose encoding has started: one never asked for would keep the frames before it.
        before = [frame if frame._future is not None else None for frame in list(after)[: len(images)]]
        before += [None] * (len(images) - len(before))
        return tuple(self._frame(image, frame_format, eager, shown) for image, shown in zip(images, before))

    def _frame(self, image: Any, frame_format: dict, eager: bool, after: Optional[SentFrame] = None) -> SentFrame:
        if isinstance(image, SentFrame):
            if image.frame_format == frame_format:
                return image
            image = image.pixels
        fkey = _format_key(frame_format)
        known = self._by_id.get(id(image))
        if known is not None and known[0]() is image and known[1] == fkey:
            again = known[2]()
            if again is not None:
                return again
        pixels = _checked(image)
        sent = SentFrame(pixels, frame_format, self._submit, after if frame_format["format"] == "png" else None)
        if isinstance(image, np.ndarray):
            ident = id(image)
            forget = lambda _, i=ident: self._by_id.pop(i, None)  # noqa: E731
            self._by_id[ident] = (weakref.ref(image, forget), fkey, weakref.ref(sent))
        if eager:
            sent.start()
        return sent

    def _submit(self, sent: SentFrame) -> Future:
        # The frame's future is set before its work is queued: a thread that finds the frame among the
        # earlier ones waits on that one work, never queues a second (which a full pool would never run).
        with self._lock:
            if sent._future is not None:
                return sent._future
            future: Future = Future()
            sent._future = future
            if self._pool is None and not self.inline:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="cogsim-frames")
            pool = self._pool
        if pool is None:
            self._fill(sent, future)
        else:
            pool.submit(self._fill, sent, future)
        return future

    def _fill(self, sent: SentFrame, future: Future) -> None:
        try:
            future.set_result(self._encode(sent))
        except BaseException as error:  # noqa: BLE001 - handed to whoever asks for the bytes
            future.set_exception(error)

    def _encode(self, sent: SentFrame) -> tuple[bytes, str]:
        """(bytes, SHA-256) of a frame: those of an equal frame found earlier, else encoded here."""
        pixels = sent.pixels
        slot = (_format_key(sent.frame_format), _core.frame_digest(pixels))
        with self._lock:
            earlier = list(self._by_content.get(slot, ()))
            self._remember(slot, sent)
        for other in earlier:  # registered before this one: its work is running or done, never queued
            if other.pixels is pixels or np.array_equal(other.pixels, pixels):
                found = other._begin().result()
                sent._after, sent._bands = None, other._bands
                return found
        if sent.frame_format["format"] == "png":
            # The frame before is encoded by now unless it was never asked for (its bands are None then).
            after = sent._after
            before = after._bands if after is not None and after.shape == sent.shape else None
            rows = _changed_rows(pixels, after.pixels) if before is not None else None
            data, sent._bands = _core.encode_png_after(pixels, before, rows)
            sent._after = None
        else:
            data = _encode_one(pixels, sent.frame_format)
        with self._lock:
            self.encoded += 1
        return data, hashlib.sha256(data).hexdigest()

    def _remember(self, slot: tuple, sent: SentFrame) -> None:
        self._by_content.setdefault(slot, []).append(sent)
        self._by_content.move_to_end(slot)
        self._cached_bytes += sent.pixels.nbytes
        while self._cached_bytes > self.cache_bytes and len(self._by_content) > 1:
            _, dropped = self._by_content.popitem(last=False)
            self._cached_bytes -= sum(frame.pixels.nbytes for frame in dropped)

    def close(self) -> None:
        """Waits for the encodings in flight and stops the threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def as_sent(image: Any, frame_format: dict = PNG) -> SentFrame:
    """A SentFrame of ``image`` (itself if it is one), encoded in the caller's thread when asked for:
    for frames that come from outside an encoder (a user's own messages)."""
    if isinstance(image, SentFrame):
        return image
    return _DIRECT.frames([image], frame_format, eager=False)[0]


class _DirectEncoder(FrameEncoder):
    """Encodes in the thread that asks, remembering nothing (frames handed in one at a time)."""

    def __init__(self):
        super().__init__(threads=1, cache_bytes=0)

    def _frame(self, image: Any, frame_format: dict, eager: bool, after: Optional[SentFrame] = None) -> SentFrame:
        return SentFrame(_checked(image), frame_format, self._run_here)

    def _run_here(self, sent: SentFrame) -> Future:
        future: Future = Future()
        try:
            data = _encode_one(sent.pixels, sent.frame_format)
            future.set_result((data, hashlib.sha256(data).hexdigest()))
        except BaseException as error:  # noqa: BLE001 - handed to whoever asks for the bytes
            future.set_exception(error)
        return future


_DIRECT = _DirectEncoder()
