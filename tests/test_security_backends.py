"""Model servers are untrusted (docs/security.md): one deadline bounds each whole request, the reply
body is read as a stream up to a cap, and any body that is not a chat completion is a
``bad_response`` fault, never a crash. Each case has a time bound; the big bodies a memory bound."""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import loop_envs  # noqa: F401  (registers the looptest envs)
from cogsim.agents import Message, make_agent
from cogsim.agents.openai import parse_chat_completion
from cogsim.cli import main as cogsim_main
from hostile_servers import Server, answer, completion, endless, headers, trickle, trickle_headers

pytestmark = pytest.mark.timeout(60)  # every case is time-bound; slower ones say more

PROMPT = [[Message("user", "How many?")]]


def _ask(url: str, **options):
    backend = make_agent("openai:m", base_url=url, max_retries=0, **options)
    try:
        started = time.perf_counter()
        (result,) = backend.complete(PROMPT)
        return result, time.perf_counter() - started
    finally:
        backend.close()


@pytest.mark.timeout(20)
@pytest.mark.parametrize("behaviour", [trickle(0.2), trickle_headers(0.2)], ids=["body", "headers"])
def test_a_trickling_server_cannot_stretch_the_deadline(behaviour):
    with Server(behaviour) as server:
        result, seconds = _ask(server.url, timeout_s=1.0)
    assert result.text is None and result.fault == "timeout" and "whole request" in result.error
    assert seconds < 3.0


@pytest.mark.timeout(20)
def test_an_endless_body_is_given_up_at_the_cap_in_bounded_memory():
    with Server(endless()) as server:
        tracemalloc.start()
        try:
            result, _ = _ask(server.url, timeout_s=10.0, max_response_bytes=2 << 20)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert result.fault == "bad_response" and "larger than max_response_bytes (2.0 MiB)" in result.error
    assert peak < 32 << 20


@pytest.mark.timeout(30)
def test_a_50_mb_body_is_refused_by_default_in_bounded_memory_and_taken_when_the_cap_is_raised():
    big = completion("x" * (50 << 20))
    with Server(answer(big)) as server:
        tracemalloc.start()
        try:
            result, _ = _ask(server.url, timeout_s=20.0)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.fault == "bad_response" and "max_response_bytes (8.0 MiB)" in result.error
        assert peak < 40 << 20  # refused from its Content-Length, never read
    medium = completion("y" * (10 << 20))
    with Server(answer(medium)) as server:
        result, _ = _ask(server.url, timeout_s=20.0, max_response_bytes=16 << 20)
    assert result.text == "y" * (10 << 20)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,
        b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"choices": [{"message": {"content": "a"}}], "usage": ' + b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"}",
        b"not json at all \x00\xff\xfe",
        b'{"choices": [{"message": {"content": 5}}]}',
        b'{"choices": "no"}',
        b"[1, 2, 3]",
        b'{"choices": [{"message": {"content": "' + b"\xc3" * 10 + b'"}}]}',
        b'{"choices": [{"message": {"content": "a"}}], "usage": {"prompt_tokens": 1' + b"0" * 5000 + b"}}",
        b"",
    ],
    ids=[
        "nested-100k",
        "nested-choices",
        "nested-usage",
        "binary",
        "content-int",
        "choices-str",
        "list",
        "bad-utf8",
        "5000-digit-int",
        "empty",
    ],
)
def test_any_malformed_body_is_a_bad_response_fault(body):
    with Server(answer(body)) as server:
        result, _ = _ask(server.url, timeout_s=5.0)
    assert result.text is None and result.fault == "bad_response", result.error
    assert len(result.error) < 3000


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(),
            lambda c: st.lists(c) | st.dictionaries(st.text(max_size=8), c),
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_parse_chat_completion_never_raises(payload):
    parsed = parse_chat_completion(payload)
    assert isinstance(parsed, str) or parsed.text is not None


def test_huge_token_counts_are_dropped_not_stored():
    body = json.dumps(
        {"choices": [{"message": {"content": "a"}}], "usage": {"prompt_tokens": 2**70, "completion_tokens": -5}}
    ).encode()
    parsed = parse_chat_completion(body)
    assert parsed.text == "a" and parsed.prompt_tokens is None and parsed.completion_tokens is None


@pytest.mark.timeout(60)
def test_a_run_against_a_server_sending_nested_json_ends_in_a_backend_fault_exit_3(tmp_path, capsys):
    with Server(answer(b"[" * 100_000)) as server:
        code = cogsim_main(
            [
                "run",
                "looptest/count",
                "--episodes",
                "1",
                "--agent",
                "openai:m",
                "--agent-option",
                f"base_url={server.url}",
                "--agent-option",
                "max_retries=0",
                "--out",
                str(tmp_path / "run"),
                "--no-progress",
            ]
        )
    assert code == 3
    err = capsys.readouterr().err
    assert "[bad_response]" in err and "nested deeper than 64 levels" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "options, refusal",
    [
        ({"base_url": "file:///etc/passwd"}, "http:// or https://"),
        ({"timeout_s": float("inf")}, "timeout_s"),
        ({"timeout_s": -1}, "timeout_s"),
        ({"max_response_bytes": 2**40}, "max_response_bytes"),
        ({"concurrency": 10**5000}, "concurrency"),
        ({"max_retries": True}, "max_retries"),
    ],
)
def test_bad_backend_options_are_clear_errors(options, refusal):
    with pytest.raises(ValueError, match=refusal):
        make_agent("openai:m", **options)


def test_error_bodies_are_read_only_so_far(tmp_path):
    with Server(
        lambda conn: (conn.sendall(headers(None, "400 Bad Request")), [conn.sendall(b"e" * 65536) for _ in range(2000)])
    ) as server:
        result, seconds = _ask(server.url, timeout_s=10.0)
    assert result.fault == "http" and result.error.startswith("HTTP 400: eee") and len(result.error) < 1000
