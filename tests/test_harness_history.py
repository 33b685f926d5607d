"""Conversation history policies: full, last:K, current, and the image cap."""

import numpy as np
import pytest

from cogsim.agents import Message
from cogsim.harness import HistoryPolicy


def frame(value):
    return np.full((2, 2, 3), value, np.uint8)


PAST = [(Message("user", f"q{i}", (frame(i),)), f"a{i}") for i in range(4)]
NOW = Message("user", "q4", (frame(4), frame(5)))


def texts(messages):
    return [(m.role[0], m.text) for m in messages]


def test_full_keeps_every_turn_after_the_system_prompt():
    messages = HistoryPolicy.parse("full").messages("rules", PAST, NOW)
    assert texts(messages) == [("s", "rules")] + [x for i in range(4) for x in (("u", f"q{i}"), ("a", f"a{i}"))] + [
        ("u", "q4")
    ]


def test_last_k_and_current():
    assert texts(HistoryPolicy.parse("last:2").messages(None, PAST, NOW)) == [
        ("u", "q2"),
        ("a", "a2"),
        ("u", "q3"),
        ("a", "a3"),
        ("u", "q4"),
    ]
    assert texts(HistoryPolicy.parse("last:0").messages(None, PAST, NOW)) == [("u", "q4")]
    assert texts(HistoryPolicy.parse("last:9").messages(None, PAST, NOW)) == texts(
        HistoryPolicy.parse("full").messages(None, PAST, NOW)
    )
    assert texts(HistoryPolicy.parse("current").messages("rules", PAST, NOW)) == [("s", "rules"), ("u", "q4")]
    assert str(HistoryPolicy.parse("last:3")) == "last:3"


def test_image_cap_keeps_the_newest():
    messages = HistoryPolicy.parse("full", max_images=3).messages(None, PAST, NOW)
    kept = [int(img[0, 0, 0]) for m in messages for img in m.images]
    assert kept == [3, 4, 5]
    assert [m.text for m in messages if m.role == "user"] == ["q0", "q1", "q2", "q3", "q4"]  # text stays
    one = HistoryPolicy.parse("full", max_images=1).messages(None, PAST, NOW)
    assert [int(img[0, 0, 0]) for m in one for img in m.images] == [5]
    none = HistoryPolicy.parse("current", max_images=0).messages(None, PAST, NOW)
    assert none[-1].images == () and NOW.images  # the caller's messages are not modified


@pytest.mark.parametrize("spec", ["last", "last:", "last:-1", "last:two", "all", ""])
def test_bad_specs_are_named(spec):
    with pytest.raises(ValueError, match="history must be 'full', 'current' or 'last:K'"):
        HistoryPolicy.parse(spec)


def test_bad_image_cap():
    with pytest.raises(ValueError, match="max_images"):
        HistoryPolicy.parse("full", max_images=-1)


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(
    images=st.lists(st.integers(0, 3), max_size=12),
    spec=st.sampled_from(["full", "current", "last:0", "last:1", "last:3", "window:0", "window:1", "window:3"]),
    max_images=st.one_of(st.none(), st.integers(0, 5)),
    current_images=st.integers(0, 2),
)
def test_retained_history_gives_every_later_prompt_unchanged(images, spec, max_images, current_images):
    """The runner keeps only ``retained(past)`` (memory bounded by the policy): every later prompt,
    whatever drop, must equal the one built from the whole past."""
    policy = HistoryPolicy.parse(spec, max_images)
    frame = lambda k: f"frame{k}"  # noqa: E731  (messages only carry the images through)
    past, retained = [], []
    for turn, count in enumerate(images):
        exchange = (Message("user", f"u{turn}", tuple(frame(f"{turn}.{i}") for i in range(count))), f"a{turn}")
        past.append(exchange)
        retained = policy.retained(retained + [exchange])
        current = Message("user", "now", tuple(frame(f"c{i}") for i in range(current_images)))
        for drop in range(policy.kept(len(past)) + 1):
            assert policy.messages("sys", retained, current, drop) == policy.messages("sys", past, current, drop)
    if policy.mode in ("current", "last") or (policy.mode == "window" and policy.window):
        assert len(retained) <= policy.window
    if max_images is not None:
        assert sum(len(user.images) for user, _ in retained) <= max_images
