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
        self.healed = False  # True: every model answers like "m"
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
        if self.healed:
            return 200, answer, {}
        if model == "slow":
            time.sleep(0.05)
        if model == "always-500":
            return 500, b'{"error": {"message": "overloaded"}}', {}
        if model == "bad-request":
            return 400, b'{"error": {"message": "context too long"}}', {}
        if model == "hang":
            time.sleep(1.0)
            return 200, answer, {}
        if model == "text-only" and any(isinstance(m["content"], list) for m in messages):
            message = b'{"error": {"code": 500, "message": "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj", "type": "server_error"}}'
            return 500, message, {}
        if model == "text-only-llama" and any(isinstance(m["content"], list) for m in messages):
            # llama-cpp-python 0.3 with a text-only chat template
            return (
                500,
                b'{"error": {"message": "can only concatenate str (not \\"list\\") to str", "type": "internal_server_error"}}',
                {},
            )
        if model == "overflow-llama":  # llama-cpp-python's wording
            return 400, b'{"error": {"message": "Requested tokens (5000) exceed context window of 2048"}}', {}
        if model == "rate-limited-once" and attempt == 1:
            return 429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0"}
        if model == "chaos":
            return CHAOS.get((turn, attempt), CHAOS.get((turn, None), lambda: (200, answer, {})))()
        return 200, answer, {}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(text, finish="stop"):
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
        }
    ).encode()


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


def test_misbehaving_server_run_never_scores_a_failed_call(server, tmp_path):
    config = RunConfig([Task("looptest/count", 4)], ["openai:chaos"], history="full", agent_options=options(server))
    summary = run(config, tmp_path)
    # targets 3..6: turns 0-2 succeed after retries (429; 500, 503; a timeout); turn 3 gets malformed
    # JSON: a fault of that one call, so those 3 episodes stop there (resumable), the run goes on
    assert summary.statuses == {"done": 1, "running": 3} and not summary.ok
    assert list(summary.faults) == ["bad_response"] and summary.faults["bad_response"][0] == 3
    with open_store(tmp_path) as store:
        rows = store.query(
            "SELECT t.turn, t.response, t.parse, t.error, t.attempts, t.prompt_tokens, t.finish_reason FROM turns t "
            "JOIN episodes e ON e.id = t.episode_id ORDER BY e.seed, t.turn"
        )
    assert {(turn, attempts) for turn, *_, attempts, _, _ in rows} == {(0, 2), (1, 3), (2, 2)}
    assert all(
        r[1].startswith("ANSWER") and r[2] == "ok" and r[3] is None and r[5] == 11 and r[6] == "stop" for r in rows
    )
    server.healed = True
    summary = run(None, tmp_path, resume=True)
    assert summary.ok and summary.statuses == {"done": 4}
    with open_store(tmp_path) as store:
        assert [e["turns"] for e in store.episodes()] == [3, 4, 5, 6] and all(e["success"] for e in store.episodes())
        assert store.query("SELECT COUNT(*) FROM turns WHERE error IS NOT NULL OR response = ''") == [(0,)]
    from cogsim.report import write_report

    report = write_report(tmp_path)[0].read_text()
    assert "| 198 / 72 |" in report  # 18 turns of 11 prompt and 4 completion tokens


def test_a_server_that_always_fails_stops_the_run_resumable(server, tmp_path):
    config = RunConfig([Task("looptest/count", 2)], ["openai:always-500"], agent_options=options(server, max_retries=2))
    summary = run(config, tmp_path)
    assert summary.statuses == {"running": 2} and summary.turns == 0
    assert summary.faults == {
        "http": (2, 'turn 0: HTTP 500: {"error": {"message": "overloaded"}} (gave up after 3 attempts)')
    }
    assert len(server.requests) == 2 * 3  # 3 attempts for each of the 2 first turns, then the run stops
    server.healed = True
    assert run(None, tmp_path, resume=True).ok


def test_connection_refused_and_timeout_stop_the_run(server, tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dead = {**options(server, max_retries=1), "base_url": f"http://127.0.0.1:{port}/v1"}
    summary = run(
        RunConfig([Task("looptest/count", 3)], ["openai:m"], concurrency=1, agent_options=dead), tmp_path / "a"
    )
    assert summary.statuses == {"running": 1} and list(summary.faults) == ["connection"]
    assert "gave up after 2 attempts" in summary.faults["connection"][1]
    # resume against the live server: the base URL may change, and the change is recorded
    summary = run(None, tmp_path / "a", resume=True, changes={"agent_options": {"base_url": server.url}})
    assert summary.ok and summary.statuses == {"done": 3}
    with open_store(tmp_path / "a") as store:
        assert store.config_changes() == [{"agent_options.base_url": [dead["base_url"], server.url]}]
    summary = run(
        RunConfig([Task("looptest/count", 1)], ["openai:hang"], agent_options=options(server, max_retries=0)),
        tmp_path / "b",
    )
    assert list(summary.faults) == ["timeout"] and summary.faults["timeout"][1].startswith(
        "turn 0: timeout after 0.3 s"
    )


def test_context_overflow_is_not_retried_and_fails_only_its_episode(server, tmp_path):
    backend = make_agent("openai:overflow-llama", **options(server))
    (completion,) = backend.complete([[Message("user", "hi")]])
    backend.close()
    assert completion.fault == "context_overflow" and completion.attempts == 1
    summary = run(
        RunConfig([Task("looptest/count", 2)], ["openai:bad-request"], agent_options=options(server)), tmp_path
    )
    assert summary.statuses == {"running": 2} and list(summary.faults) == ["context_overflow"]
    assert len(server.requests) == 1 + 2


@pytest.mark.parametrize("model", ["text-only", "text-only-llama"])
def test_images_to_a_text_only_model_stop_the_run_naming_the_image_suites(server, tmp_path, model):
    config = RunConfig(
        [Task("looptest/count", 2), Task("looptest/choice", 3)],
        [f"openai:{model}"],
        concurrency=8,
        agent_options={**options(server), "concurrency": 1},
    )
    summary = run(config, tmp_path)
    assert list(summary.faults) == ["unsupported_input"]
    count, message = summary.faults["unsupported_input"]
    assert f"openai:{model} does not accept images" in message and "send images: looptest/choice;" in message
    # the first image request is not retried (llama wording: one text-only probe tells), the others
    # of the step are not even sent; the run stops before the count episodes go on
    assert sum(isinstance(b["messages"][-1]["content"], list) for _, _, b in server.requests) == 1 and count == 3
    assert sum(b.get("max_tokens") == 1 for _, _, b in server.requests) == (model == "text-only-llama")
    with open_store(tmp_path) as store:
        assert store.query("SELECT COUNT(*) FROM episodes WHERE status != 'running'") == [(0,)]


def test_429_then_success_and_env_decoding_defaults_in_the_body(server):
    backend = make_agent("openai:rate-limited-once", **options(server))
    (completion,) = backend.complete([[Message("user", "hi")]], [{"max_tokens": 65536, "temperature": 0.6}])
    assert completion.text == "ANSWER: 1" and completion.attempts == 2 and completion.finish_reason == "stop"
    assert server.requests[-1][2]["max_tokens"] == 65536 and server.requests[-1][2]["temperature"] == 0.6
    backend.close()
    backend = make_agent("openai:m", **options(server, max_tokens=64))  # the user's setting wins
    backend.complete([[Message("user", "hi")]], [{"max_tokens": 65536}])
    backend.close()
    assert server.requests[-1][2]["max_tokens"] == 64


def test_client_errors_are_not_retried(server):
    backend = make_agent("openai:bad-request", **options(server))
    (completion,) = backend.complete([[Message("user", "hi")]])
    backend.close()
    assert completion.text is None and completion.attempts == 1 and completion.fault == "context_overflow"
    assert completion.error == 'HTTP 400: {"error": {"message": "context too long"}}'


def test_wire_format_headers_images_and_concurrency_limit(server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    config = RunConfig(
        [Task("looptest/choice", 4, {"size": 12})],
        ["openai:slow"],
        concurrency=4,
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
    png = Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"][len(prefix) :])))
    assert png.size == (12, 12) and png.getpixel((5, 5)) in [c for c in loop_envs.COLOURS.values()]
    assert server.max_in_flight == 2  # 4 episodes per step, 2 requests at a time
    with open_store(tmp_path) as store:
        (description,) = store.query("SELECT description FROM backends")
    assert json.loads(description[0]) == {
        "backend": "openai",
        "model": "slow",
        "base_url": server.url,
        "temperature": 0.0,
        "max_tokens": 32,
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
    assert (
        parse_chat_completion(b'{"choices": [{"message": {"content": null}}]}') == "response choice has no text content"
    )
    parts = b'{"choices": [{"message": {"content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}}]}'
    assert parse_chat_completion(parts).text == "AB"
    assert parse_chat_completion(b"\xff\xfe").startswith("malformed JSON response")


def test_bad_backend_options_are_named():
    with pytest.raises(ValueError, match="unknown options \\['temprature'\\]"):
        make_agent("openai:m", temprature=0.5)
    with pytest.raises(ValueError, match="concurrency must be a positive integer"):
        make_agent("openai:m", concurrency=0)


@pytest.mark.parametrize(
    "message, status, kind",
    [
        # llama-cpp-python 0.3.36, measured against the SmolLM2 server
        (
            'HTTP 400: {"error":{"message":"This model\'s maximum context length is 2048 tokens. However, you requested 3039 '
            'tokens","type":"invalid_request_error","code":"context_length_exceeded"}}',
            400,
            "context_overflow",
        ),
        ("HTTP 400: Requested tokens (5000) exceed context window of 2048", 400, "context_overflow"),
        ("vllm rejected the prompt: ValueError: prompt is longer than max_model_len", None, "context_overflow"),
        # vLLM 0.32's limit of images in a prompt (limit_mm_per_prompt), in process and served: a budget, not the model
        (
            "vllm rejected the prompt: ValueError: At most 4 image(s) may be provided in one prompt. Set "
            "`--limit-mm-per-prompt` to increase this limit.",
            None,
            "context_overflow",
        ),
        (
            'HTTP 400: {"error":{"message":"At most 2 image(s) may be provided in one prompt."}}',
            400,
            "context_overflow",
        ),
        ("HTTP 500: image input is not supported - hint: you may need to provide the mmproj", 500, "unsupported_input"),
        ("HTTP 503: unavailable (gave up after 6 attempts)", 503, "http"),
        ("timeout after 300 s", None, "timeout"),
        ("connection error: ConnectError: [Errno 111] Connection refused", None, "connection"),
        ("malformed JSON response: {", None, "bad_response"),
    ],
)
def test_fault_kinds_from_server_wording(message, status, kind):
    from cogsim.agents.base import classify_fault

    assert classify_fault(message, status) == kind
