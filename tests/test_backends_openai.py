"""The openai: backend against a local chat-completions server that misbehaves on purpose."""

import base64
import io
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

import loop_envs  # noqa: F401
from cogsim.agents import Message, make_agent
from cogsim.agents.openai import parse_chat_completion
from cogsim.harness import RunConfig, Task, run
from cogsim.store import open_store


class ChatServer:
    """Speaks POST /v1/chat/completions. The "model" answers the count env from the conversation:
    one more than its earlier non-empty answers. Scenario "chaos" misbehaves by turn (the number of
    assistant messages) and attempt: see ``CHAOS``."""

    def __init__(self):
        self.requests = []
        self.attempts = Counter()
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append((self.path, dict(self.headers), body))
                    key = json.dumps(body["messages"])
                    server.attempts[key] += 1
                    attempt = server.attempts[key]
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, payload, headers = server.respond(body, attempt)
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and hung up
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def respond(self, body, attempt):
        model, messages = body["model"], body["messages"]
        turn = sum(m["role"] == "assistant" for m in messages)
        said = sum(m["role"] == "assistant" and m["content"] != "" for m in messages)
        answer = _completion(f"ANSWER: {said + 1}")
        if model == "slow":
            time.sleep(0.05)
        if model == "always-500":
            return 500, b'{"error": {"message": "overloaded"}}', {}
        if model == "bad-request":
            return 400, b'{"error": {"message": "context too long"}}', {}
        if model == "chaos":
            return CHAOS.get((turn, attempt), CHAOS.get((turn, None), lambda: (200, answer, {})))()
        return 200, answer, {}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(text, finish="stop"):
    return json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
    }).encode()


def _slow_then_fail():
    time.sleep(1.0)
    return 500, b"{}", {}


# (turn, attempt) -> response; (turn, None) -> every attempt of that turn
CHAOS = {
    (0, 1): lambda: (429, b'{"error": {"message": "rate limited"}}', {"Retry-After": "0"}),
    (1, 1): lambda: (500, b"internal error", {}),
    (1, 2): lambda: (503, b"unavailable", {}),
    (2, 1): _slow_then_fail,  # longer than the client's timeout
    (3, None): lambda: (200, b'{"choices": [{"message": {"content": "ANSW', {}),
    (4, None): lambda: (200, b'{"id": "x", "choices": []}', {}),
}


@pytest.fixture
def server():
    chat = ChatServer()
    yield chat
    chat.close()


def options(server, **extra):
    return {"base_url": server.url, "backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 0.3, **extra}


def test_misbehaving_server_run_finishes_with_failures_recorded(server, tmp_path):
    config = RunConfig([Task("looptest/count", 4)], ["openai:chaos"], history="full", agent_options=options(server))
    summary = run(config, tmp_path)
    assert summary.finished == 4 and summary.statuses == {"done": 4}
    with open_store(tmp_path) as store:
        episodes = store.episodes()
        rows = store.query(
            "SELECT e.seed, t.turn, t.response, t.parse, t.error, t.attempts, t.prompt_tokens FROM turns t "
            "JOIN episodes e ON e.id = t.episode_id ORDER BY e.seed, t.turn"
        )
    # targets 3..6: turns 0-2 succeed after retries (429; 500, 503; a timeout), turn 3 gets malformed
    # JSON, turn 4 no choices; the model then goes on counting from its non-empty answers
    assert [e["turns"] for e in episodes] == [3, 6, 7, 8]
    assert all(e["success"] for e in episodes)
    by_turn = {}
    for seed, turn, response, parse, error, attempts, tokens in rows:
        by_turn.setdefault(turn, set()).add((parse, error and error.split(":")[0], attempts))
        assert (tokens == 11) == (error is None)
        assert (response == "") == (error is not None)
    assert by_turn[0] == {("ok", None, 2)}
    assert by_turn[1] == {("ok", None, 3)}
    assert by_turn[2] == {("ok", None, 2)}
    assert by_turn[3] == {("parse_failure", "malformed JSON response", 1)}
    assert by_turn[4] == {("parse_failure", "response has no choices", 1)}
    assert by_turn[5] == {("ok", None, 1)}
    assert summary.backend_errors == 6 and summary.turns == 3 + 6 + 7 + 8
    from cogsim.report import write_report

    report = write_report(tmp_path)[0].read_text()
    # 24 turns, 6 failed at the backend: 18 answers of 11 prompt and 4 completion tokens
    assert "| 198 / 72 |" in report
    assert "malformed JSON response" in report and "response has no choices" in report


def test_a_server_that_always_fails_still_ends_the_run(server, tmp_path):
    config = RunConfig([Task("looptest/count", 2)], ["openai:always-500"], agent_options=options(server, max_retries=2))
    summary = run(config, tmp_path)
    assert summary.statuses == {"done": 2}
    with open_store(tmp_path) as store:
        errors = store.query("SELECT DISTINCT error, attempts, parse FROM turns")
        assert [e["success"] for e in store.episodes()] == [False, False]
    assert errors == [('HTTP 500: {"error": {"message": "overloaded"}} (gave up after 3 attempts)', 3, "parse_failure")]
    assert len(server.requests) == 3 * (2 * 3 + 2 * 4)  # 3 attempts per turn, budget 2N turns


def test_client_errors_are_not_retried(server):
    backend = make_agent("openai:bad-request", **options(server))
    (completion,) = backend.complete([[Message("user", "hi")]])
    backend.close()
    assert completion.text is None and completion.attempts == 1
    assert completion.error == 'HTTP 400: {"error": {"message": "context too long"}}'


def test_wire_format_headers_images_and_concurrency_limit(server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    config = RunConfig(
        [Task("looptest/choice", 4, {"size": 12})], ["openai:slow"], concurrency=4,
        agent_options={"concurrency": 2, "max_tokens": 32},
    )
    run(config, tmp_path)
    path, headers, body = server.requests[0]
    assert path == "/v1/chat/completions" and headers["Authorization"] == "Bearer test-key"
    assert body["model"] == "slow" and body["temperature"] == 0.0 and body["max_tokens"] == 32
    (message,) = body["messages"]
    image, text = message["content"]
    assert text == {"type": "text", "text": message["content"][1]["text"]} and "Colour of the square" in text["text"]
    prefix = "data:image/png;base64,"
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith(prefix)
    png = Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"][len(prefix):])))
    assert png.size == (12, 12) and png.getpixel((5, 5)) in [c for c in loop_envs.COLOURS.values()]
    assert server.max_in_flight == 2  # 4 episodes per step, 2 requests at a time
    with open_store(tmp_path) as store:
        (description,) = store.query("SELECT description FROM backends")
    assert json.loads(description[0]) == {
        "backend": "openai", "model": "slow", "base_url": server.url, "temperature": 0.0, "max_tokens": 32
    }


def test_api_keys_are_not_stored(server, tmp_path):
    config = RunConfig([Task("looptest/count", 1)], ["openai:m"], agent_options=options(server, api_key="sk-secret"))
    run(config, tmp_path)
    assert server.requests[0][1]["Authorization"] == "Bearer sk-secret"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"sk-secret" not in path.read_bytes()


def test_parse_chat_completion_edge_cases():
    assert parse_chat_completion(b"[1, 2]") == "response is not a JSON object: [1, 2]"
    assert parse_chat_completion(b'{"choices": [{"message": {"content": null}}]}') == "response choice has no text content"
    parts = b'{"choices": [{"message": {"content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}}]}'
    assert parse_chat_completion(parts).text == "AB"
    assert parse_chat_completion(b"\xff\xfe").startswith("malformed JSON response")


def test_bad_backend_options_are_named():
    with pytest.raises(ValueError, match="unknown options \\['temprature'\\]"):
        make_agent("openai:m", temprature=0.5)
    with pytest.raises(ValueError, match="concurrency must be a positive integer"):
        make_agent("openai:m", concurrency=0)
