"""A local HTTP server for the security tests: it records every request (path, headers, body) and
answers with a chosen behaviour, honest or hostile, on raw sockets so it can misbehave at will
(trickle bytes, never end a body, lie about lengths)."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Callable


def completion(text: str = "ANSWER: 1") -> bytes:
    return json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}).encode()


def headers(body_length: int | None = None, status: str = "200 OK", extra: str = "") -> bytes:
    length = f"Content-Length: {body_length}\r\n" if body_length is not None else ""
    return f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{length}{extra}Connection: close\r\n\r\n".encode()


def answer(body: bytes) -> Callable[[socket.socket], None]:
    """An honest reply with this body."""

    def behave(conn) -> None:
        conn.sendall(headers(len(body)))
        conn.sendall(body)

    return behave


def trickle(seconds_per_byte: float = 0.2) -> Callable[[socket.socket], None]:
    """Headers promising a long body, then one byte at a time for as long as the client listens."""

    def behave(conn: socket.socket) -> None:
        conn.sendall(headers(1_000_000))
        for _ in range(1_000_000):
            conn.sendall(b" ")
            time.sleep(seconds_per_byte)

    return behave


def trickle_headers(seconds_per_byte: float = 0.2) -> Callable[[socket.socket], None]:
    """The status line and headers themselves, one byte at a time."""

    def behave(conn: socket.socket) -> None:
        for byte in headers(10) * 1000:
            conn.sendall(bytes([byte]))
            time.sleep(seconds_per_byte)

    return behave


def endless(chunk: bytes = b"[" * 65536) -> Callable[[socket.socket], None]:
    """A body with no length that never ends, sent as fast as the client reads."""

    def behave(conn: socket.socket) -> None:
        conn.sendall(headers(None))
        while True:
            conn.sendall(chunk)

    return behave


class Server:
    """Serves ``behaviour(conn)`` for every connection, in threads; ``requests`` holds what came in."""

    def __init__(self, behaviour: Callable[[socket.socket], None]):
        self.behaviour = behaviour
        self.requests: list[dict] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                self.requests.append(_read_request(conn))
                self.behaviour(conn)
            except OSError:  # the client hung up: what a hostile server expects sooner or later
                pass

    def close(self) -> None:
        self.closed = True
        self.sock.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read_request(conn: socket.socket) -> dict:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    length = int(fields.get("content-length", "0") or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return {"request_line": lines[0], "headers": fields, "body": body.decode("utf-8", "replace")}
