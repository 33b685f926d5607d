"""What the tests of ``cogsim play`` and ``cogsim view`` share: the command started as a user starts it
(its printed address read back), and a headless Chromium (Debian's ``chromium`` package) driven by
Playwright. Without that browser the tests fail with one line naming what to install."""

from __future__ import annotations

import hashlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Optional

import pytest

URL = re.compile(r"(http://\S+/\?token=\S+)")


def chromium_path() -> str:
    """The system Chromium the browser tests drive ($COGSIM_CHROMIUM, else chromium on PATH)."""
    path = os.environ.get("COGSIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail(
            "the browser tests need Chromium: install Debian's package (apt-get install chromium, which "
            "scripts/setup.sh does when run as root) or set COGSIM_CHROMIUM to a Chromium binary",
            pytrace=False,
        )
    return path


class Command:
    """``cogsim ARGS`` in a child process, as a user runs it; ``url`` is the address it printed."""

    def __init__(self, *args: str, cwd: Optional[Path] = None):
        cogsim = Path(sys.executable).parent / "cogsim"
        self.process = subprocess.Popen(
            [str(cogsim), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env={**os.environ, "DISPLAY": "", "WAYLAND_DISPLAY": ""},  # never open a browser window
        )
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list = []
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.stderr.append), daemon=True).start()
        self.url = self._address()

    @staticmethod
    def _read(stream, keep) -> None:
        for line in stream:
            keep(line)

    def _address(self, timeout: float = 120.0) -> str:
        try:
            while True:
                line = self.lines.get(timeout=timeout)
                found = URL.search(line)
                if found:
                    return found.group(1)
        except queue.Empty:
            self.process.kill()
            raise AssertionError(f"the command printed no address; stderr: {''.join(self.stderr)[-2000:]}") from None

    def base(self) -> str:
        return self.url.split("/?token=")[0]

    def token(self) -> str:
        return self.url.split("/?token=")[1]

    def wait(self, timeout: float = 120.0) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"the command did not end; stderr: {''.join(self.stderr)[-2000:]}") from None

    def output(self) -> str:
        lines = []
        while not self.lines.empty():
            lines.append(self.lines.get())
        return "".join(lines)

    def __enter__(self) -> "Command":
        return self

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
