"""The server ``cogsim play`` and ``cogsim view`` run on, and what every request and response passes.

- Bound to 127.0.0.1 on a free port unless the user names another address and port.
- A random token (``secrets.token_urlsafe``) in the address it prints: the first request that
  carries it (``?token=``) gets it back as an HttpOnly, SameSite=Lax cookie named for the port and
  is sent on to the same address without it; any request without the token answers 403. On a
  loopback address the Host header must name that address (a page of another site that renames
  itself to 127.0.0.1 gets nothing), and a request that changes anything (POST) must come from a
  page of this server (its Origin header).
- Every response carries a strict Content-Security-Policy (no inline script or style, nothing from
  elsewhere), ``nosniff``, no referrer, no framing; pages are never cached.
- Pages are Jinja2 templates with autoescaping on; a form body is read within a size bound.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Optional
from urllib.parse import parse_qs, urlencode

from cogsim._untrusted import printable

PAGE_CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
FILE_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'"  # a frame's bytes, a static file
MAX_FORM_BYTES = 2 << 20  # a form's body (a person's reply: the env's 1 MiB of text, percent-encoded)
MAX_FORM_FIELDS = 16
TOKEN_PARAM = "token"
STATIC = {"cogsim.css": "text/css; charset=utf-8", "play.js": "text/javascript; charset=utf-8"}
WEB_PACKAGES = ("starlette", "uvicorn", "jinja2")


def require_web(command: str) -> None:
    """ValueError naming the extra to install when the web stack is missing."""
    missing = []
    for name in WEB_PACKAGES:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise ValueError(
            f"cogsim {command} needs {', '.join(missing)}: pip install 'cogsim[web]' (Starlette, uvicorn, Jinja2)"
        )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True)
class Access:
    """Who may use a server: the token, the Host names it answers to (None: any, for an address the
    user named that is not loopback) and the cookie that carries the token."""

    token: str
    port: int
    hosts: Optional[frozenset]

    @classmethod
    def create(cls, host: str, port: int) -> "Access":
        hosts = None
        if is_loopback(host):
            names = {host, "127.0.0.1", "localhost", "::1"}
            hosts = frozenset(_netloc(name, port) for name in names)
        return cls(secrets.token_urlsafe(32), port, hosts)

    @property
    def cookie(self) -> str:
        return f"cogsim-{self.port}"

    def valid(self, token: Optional[str]) -> bool:
        return isinstance(token, str) and secrets.compare_digest(token.encode(), self.token.encode())


class Guard:
    """ASGI middleware: the host, token and origin checks, and the security headers (module docstring)."""

    def __init__(self, app: Callable, access: Access):
        self.app, self.access = app, access

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, RedirectResponse

        request = Request(scope)
        host = request.headers.get("host", "")
        if self.access.hosts is not None and host not in self.access.hosts:
            response = PlainTextResponse("cogsim: this server answers only to the address it printed\n", 421)
            return await response(scope, receive, _secured(send))
        given = request.query_params.get(TOKEN_PARAM)
        if self.access.valid(given):
            query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM])
            response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), 303)
            response.set_cookie(self.access.cookie, self.access.token, httponly=True, samesite="lax", path="/")
            return await response(scope, receive, _secured(send))
        if not self.access.valid(request.cookies.get(self.access.cookie)):
            response = PlainTextResponse(
                "cogsim: open the address the command printed (it carries this session's access token)\n", 403
            )
            return await response(scope, receive, _secured(send))
        if request.method not in ("GET", "HEAD") and request.headers.get("origin") != f"http://{host}":
            response = PlainTextResponse("cogsim: a change must come from this server's own page\n", 403)
            return await response(scope, receive, _secured(send))
        await self.app(scope, receive, _secured(send))


_SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no referrer elsewhere; a POST keeps its Origin
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


def _secured(send: Callable) -> Callable:
    """``send`` with the security headers added to the response's start (a policy or a cache rule
    the response set itself stays)."""

    async def secured_send(message: dict) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            names = {name.lower() for name, _ in headers}
            headers += [(name, value) for name, value in _SECURITY_HEADERS if name not in names]
            if b"content-security-policy" not in names:
                headers.append((b"content-security-policy", PAGE_CSP.encode()))
            if b"cache-control" not in names:
                headers.append((b"cache-control", b"no-store"))
            message = {**message, "headers": headers}
        await send(message)

    return secured_send


class Pages:
    """The package's templates, rendered with autoescaping (every value a page shows is escaped
    unless a template marks it safe, which none does for data)."""

    def __init__(self):
        import jinja2

        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("cogsim.web", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["shown"] = lambda text, limit=200: printable(text, limit)
        self.env.globals["query"] = _query

    def render(self, name: str, status: int = 200, **values: Any):
        from starlette.responses import HTMLResponse

        return HTMLResponse(self.env.get_template(name).render(**values), status)


def _query(**params: Any) -> str:
    """A query string of the parameters that are set (for links that keep a list's filters)."""
    kept = [(k, v) for k, v in params.items() if v is not None and v != ""]
    return "?" + urlencode(kept) if kept else ""


def static_route():
    """The route of the package's own CSS and script (no other file is served by name)."""
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    def static(request):
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("no such file\n", 404)
        data = resources.files("cogsim.web").joinpath("static", name).read_bytes()
        return Response(data, media_type=STATIC[name], headers={"cache-control": "no-cache"})

    return Route("/static/{name}", static)


async def read_form(request, limit: int = MAX_FORM_BYTES) -> dict[str, str]:
    """The fields of an ``application/x-www-form-urlencoded`` body, read up to ``limit`` bytes (ValueError
    past it or for another kind of body); a field given twice keeps its first value."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise ValueError(f"a form is sent as application/x-www-form-urlencoded, got {printable(kind, 60)!r}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ValueError(f"a form of at most {limit} bytes")
    fields = parse_qs(
        body.decode("latin-1"),
        keep_blank_values=True,
        max_num_fields=MAX_FORM_FIELDS,
        encoding="utf-8",
        errors="replace",
    )
    return {name: values[0] for name, values in fields.items()}


class Served:
    """An ASGI app served by uvicorn on a thread of this process, on a socket bound here (so the
    port is known before the first request, and a taken port fails at once)."""

    def __init__(self, app: Callable, host: str, port: int, access_for: Callable[[int], Access]):
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((host, port))
        except OSError as error:
            self.socket.close()
            raise ValueError(f"cannot serve on {_netloc(host, port)}: {error.strerror}") from None
        self.host, self.port = host, self.socket.getsockname()[1]
        self.access = access_for(self.port)
        config = uvicorn.Config(
            Guard(app, self.access),
            log_level="warning",
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{_netloc(self.host, self.port)}/?{TOKEN_PARAM}={self.access.token}"

    def start(self) -> "Served":
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise ValueError(f"the server on {_netloc(self.host, self.port)} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def __enter__(self) -> "Served":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def announce(served: Served, what: str, browser: bool) -> None:
    """Prints the address (with its token) and opens it in a browser where there is a display."""
    print(f"{what}: {served.url}", flush=True)
    if not is_loopback(served.host):
        print(
            f"note: serving on {served.host}, not only this machine; the token travels unencrypted (plain HTTP)",
            file=sys.stderr,
        )
    if browser and _has_display():
        try:
            webbrowser.open(served.url, new=2)
        except webbrowser.Error:
            pass


def _has_display() -> bool:
    """Whether a graphical browser can open (without a display, Python's webbrowser would start a
    text browser in this terminal)."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def add_server_options(parser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to serve on (default 127.0.0.1: this machine only; another address lets other "
        "machines reach the page, which still needs the printed token)",
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default 0: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="only print the address; open no browser")


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in [0, 65535] (0: a free port), got {port}")
    return port
