"""Env options and seeds are checked when the env is made (docs/security.md): options of every env
fuzzed for type and range give ValueError or TypeError naming the option, never another exception,
and options ``make`` accepts give a working ``reset``; seeds outside [0, 2**32 - 1] raise a
ValueError that gymnasium also recognises; templates take plain named placeholders only."""

from __future__ import annotations

import inspect
import os
import sys
import threading

import gymnasium
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogsim
from cogsim import families
from cogsim.envs import spec

pytestmark = pytest.mark.timeout(60)  # every case is time-bound; slower ones say more

ENV_IDS = sorted(families.declared_env_ids())  # cogsim's own: other tests register toy envs that check nothing
WILD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70),
    st.sampled_from([2**31, 2**40, 2**63, 2**64, -(2**63), 10**30, 10**5000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "x", "release", "cogsim", "full", "text", "3d", "image", "last:3", "strict", "oracle"]),
    st.text(max_size=8),
    st.lists(st.integers(-2, 5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _option_names(env_id: str) -> set[str]:
    """The options an env reads: its constructor's parameters and the option lists of its module."""
    entry = spec(env_id).entry_point
    module = sys.modules[entry.__module__]
    names = set(inspect.signature(entry.__init__).parameters) - {"self", "env_id", "options"}
    names |= set(getattr(entry, "test_options", ())) | set(getattr(module, "OPTIONS", ()))
    names |= set(getattr(module, "DEFAULTS", {})) | set(getattr(entry, "file_options", {}))
    return names - {"judge", "judge_options", "seed_list", "prompt_template", "prompt_file"}  # files and servers: below


ALL_NAMES = sorted(set().union(*(_option_names(env_id) for env_id in ENV_IDS)) | {"no_such_option"})
NO_IMAGES = {"kidgym": {"images": False}, "cube": {"modality": "text"}, "maze3d": {"modality": "text"}}


def _make_and_reset(env_id: str, options: dict) -> None:
    try:
        env = cogsim.make(env_id, **options)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert message and "\n" not in message.strip(), f"{env_id} {options!r}: unclear error {message!r}"
        return
    try:
        env.reset(seed=0)  # what make accepted must play
    finally:
        env.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_bad_option_is_refused_at_make_with_a_clear_error(env_id, data):
    known = sorted(_option_names(env_id))
    names = data.draw(st.lists(st.sampled_from(known + ALL_NAMES), min_size=1, max_size=3, unique=True))
    options = {name: data.draw(WILD_VALUES, label=name) for name in names}
    family = env_id.split("/")[0]
    options = {**NO_IMAGES.get(family, {}), **options} if data.draw(st.booleans(), label="fast") else options
    if family in ("kidgym", "cube", "maze3d") and any(
        options.get(k) not in (None, False, "text") for k in ("images", "modality") if k in options
    ):
        options.update(NO_IMAGES[family])  # frames: covered by the render tests; here only the checks
    _make_and_reset(env_id, options)


def test_kidgym_max_steps_is_checked_at_make():
    with pytest.raises(ValueError, match=r"max_steps must be 0 .* or an integer in \[1, 60\] for maze level 1"):
        cogsim.make("kidgym/maze", max_steps=2**40)  # the release's mechanics: any budget up to 60
    with pytest.raises(ValueError, match=r"max_steps must be 0 .* or an integer in \[1, 60\] for maze level 1"):
        cogsim.make("kidgym/maze", max_steps=2**40, look="cogsim")  # a look never changes the game
    with pytest.raises(ValueError, match="max_steps"):
        cogsim.make("kidgym/maze", max_steps=True)
    env = cogsim.make("kidgym/maze", max_steps=60, images=False)
    env.reset(seed=0)


@pytest.mark.parametrize(
    "seed", [-1, 2**32, 2**64, 10**5000, 1.5, "3", True], ids=["-1", "2^32", "2^64", "10^5000", "1.5", "'3'", "True"]
)
@pytest.mark.parametrize("env_id", ["kidgym/maze", "wilt/lite", "pairs/single", "maze3d/nav", "cube/verification"])
def test_invalid_seeds_raise_a_value_error_gymnasium_recognises(env_id, seed):
    options = {"kidgym/maze": {"images": False}, "maze3d/nav": {"modality": "text"}}.get(env_id, {})
    env = cogsim.make(env_id, **options)
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 4294967295\] or None, got ") as caught:
        env.reset(seed=seed)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, gymnasium.error.Error)
    assert len(str(caught.value)) < 200  # 10**5000 is named by its size, not its 5001 digits
    env.reset(seed=2**32 - 1)


# -- templates -------------------------------------------------------------------------------------------
TEMPLATE_ENVS = [
    ("kidgym/maze", "prompt_template", {"images": False}, "Goal {goal} {actions}"),
    ("maze3d/nav", "prompt_file", {"modality": "text"}, "Maze {maze_size} {max_steps}"),
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("env_id, option, extra, good", TEMPLATE_ENVS)
@pytest.mark.parametrize(
    "bad, refusal",
    [
        ("A {step:>1999999999} B", "conversion or format spec"),
        ("{goal:{goal.__class__.__mro__}}", "conversion or format spec"),
        ("{maze_size!r} {goal!s}", "conversion or format spec"),
        ("{goal.__class__} {maze_size[0]}", "unknown placeholder"),
        ("{0} {}", "unknown placeholder"),
        ("{goal", "not a valid template"),
        ("{goal} " * 100 + "{maze_size} " * 100, "at most 64"),
    ],
)
def test_templates_take_plain_named_placeholders_only_checked_at_make(
    tmp_path, env_id, option, extra, good, bad, refusal
):
    path = tmp_path / "template.txt"
    path.write_text(bad)
    with pytest.raises(ValueError, match=option) as caught:
        cogsim.make(env_id, **{option: str(path)}, **extra)
    assert refusal in str(caught.value) or "unknown placeholder" in str(caught.value)
    path.write_text(good)
    env = cogsim.make(env_id, **{option: str(path)}, **extra)
    obs, _ = env.reset(seed=0)
    assert "{" not in (env.system_prompt or "") + obs["text"]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "env_id, option, extra",
    [
        ("kidgym/maze", "prompt_template", {"images": False}),
        ("maze3d/nav", "prompt_file", {"modality": "text"}),
        ("wilt/lite", "prompt_file", {}),
        ("cube/verification", "seed_list", {}),
    ],
)
def test_file_options_read_only_regular_files_within_their_limit(tmp_path, env_id, option, extra):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Timer(5.0, _unblock, [fifo])  # if the env blocks on the FIFO, free it after 5 s
    writer.start()
    try:
        with pytest.raises(ValueError, match=rf"{option}: .*fifo is a FIFO \(named pipe\), not a regular file"):
            cogsim.make(env_id, **{option: str(fifo)}, **extra)
    finally:
        writer.cancel()
    with pytest.raises(ValueError, match=rf"{option}: /dev/zero is a device, not a regular file"):
        cogsim.make(env_id, **{option: "/dev/zero"}, **extra)
    with pytest.raises(ValueError, match=rf"{option}: .* is a directory"):
        cogsim.make(env_id, **{option: str(tmp_path)}, **extra)
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as handle:
        handle.truncate(200 << 20)  # sparse: 200 MiB that take no disk
    with pytest.raises(ValueError, match=rf"{option}: .*huge.txt is 200.0 MiB, more than the .* allowed"):
        cogsim.make(env_id, **{option: str(huge)}, **extra)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00\x1b[31m")
    with pytest.raises(ValueError, match=option):
        cogsim.make(env_id, **{option: str(binary)}, **extra)


def _unblock(fifo) -> None:
    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    os.close(fd)


def test_recorded_template_content_is_checked_against_its_hash(tmp_path):
    from cogsim._untrusted import file_content

    path = tmp_path / "turn.txt"
    path.write_text("Goal {goal} {actions}")
    content = file_content(path, "prompt_template", 1 << 20)
    env = cogsim.make("kidgym/maze", images=False, prompt_template=content)
    assert env.reset(seed=0)[0]["text"].startswith("Goal ")
    with pytest.raises(ValueError, match="does not match its SHA-256"):
        cogsim.make("kidgym/maze", images=False, prompt_template={**content, "text": "{goal} {step}"})
