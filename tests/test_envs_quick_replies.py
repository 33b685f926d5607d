"""The one-press answers ``cogsim play`` offers a person (``TextEnv.quick_replies``), on every env id:
each one, sent as the reply, is read by the env's own parser as an answer (parse "ok"), in every
state the first turns of an episode reach; keys are distinct within a turn."""

import numpy as np
import pytest

import cogsim
from cogsim import families
from cogsim.envs import QuickReply

ENV_IDS = families.declared_env_ids()
TURNS = 4
# Env ids whose first turns always offer quick replies (the others: free text, which the person types).
OFFER_REPLIES = ("kidgym/maze", "cube/optimal-move", "cube/verification", "maze3d/nav")


def _replayed(env_id: str, seed: int, answers: list):
    env = cogsim.make(env_id)
    env.reset(seed=seed)
    for answer in answers:
        env.step(answer)
    return env


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_quick_reply_parses(env_id):
    env = cogsim.make(env_id)
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    answers, offered = [], 0
    for _ in range(TURNS):
        replies = env.quick_replies()
        assert all(isinstance(r, QuickReply) and r.reply and r.label for r in replies)
        keys = [r.key for r in replies if r.key]
        assert len(keys) == len(set(keys)), f"{env_id}: two replies on one key: {keys}"
        for reply in replies:
            twin = _replayed(env_id, 3, answers)
            info = twin.step(reply.reply)[4]
            assert info["parse"] == "ok", f"{env_id} turn {len(answers)}: {reply} parsed as {info['parse']}"
            twin.close()
        offered += len(replies)
        answer = env.scripted_response("oracle", rng)
        answers.append(answer)
        _, _, terminated, truncated, _ = env.step(answer)
        if terminated or truncated:
            assert env.quick_replies() == (), f"{env_id}: replies offered after the episode's end"
            break
    if env_id in OFFER_REPLIES:
        assert offered, f"{env_id} offers a person no quick reply"
    env.close()


def test_quick_replies_before_reset_are_none():
    for env_id in OFFER_REPLIES:
        assert cogsim.make(env_id).quick_replies() == ()
