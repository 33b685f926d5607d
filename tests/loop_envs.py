"""Small deterministic envs for the model-loop tests (the real suites test themselves):

    looptest/count    multi-turn text: say 1..N one per turn, "ANSWER: k"
    looptest/choice   multiple choice with an image per turn: the colour of a square, "A".."D"
    looptest/duel     two players take 1-3 stones in turn, "TAKE k"; who takes the last one wins
    releasetest/count looptest/count that loads an installed release file every turn after its first

Imported by the tests, and by ``cogsim run --import tests/loop_envs.py`` in subprocess tests.
The "looptest" metrics summariser is registered here too.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np

from cogsim import envs, metrics, release_assets
from cogsim.envs import TextEnv, observation
from cogsim.metrics import Table, mean_ci, wilson

ANSWER = re.compile(r"ANSWER:\s*(-?\d+)")


class CountEnv(TextEnv):
    """Say the numbers 1..N (N = 3 + seed % 4), one per turn. A wrong number is invalid and costs a
    turn; the budget is 2N turns."""

    suite = "looptest"
    scripted_policies = ("oracle", "random", "stubborn")

    def _reset(self, seed, options):
        self.delay = self.options.get("delay", 0)
        self.crash_marker = self.options.get("crash_once")
        self.target = 3 + seed % 4
        self.next = 1
        self.turns = 0
        self.mistakes = 0
        self.system_prompt = "You count. Reply 'ANSWER: <number>'."
        return observation(f"Count from 1 to {self.target}, one number per turn. Start.")

    def _step(self, action):
        time.sleep(self.delay)  # lets the kill tests catch a run mid-way
        self._crash_once()
        self.turns += 1
        match = ANSWER.search(action)
        if match is None:
            parse, parsed = "parse_failure", None
            self.mistakes += 1
        else:
            parsed = int(match.group(1))
            parse = "ok" if parsed == self.next else "invalid"
            if parse == "ok":
                self.next += 1
            else:
                self.mistakes += 1
        success = self.next > self.target
        done = success or self.turns >= 2 * self.target
        info = {"parse": parse, "parsed": parsed}
        if done:
            info["episode"] = {"success": success, "mistakes": self.mistakes, "target": self.target}
        return observation(f"Said so far: {self.next - 1}. Next?"), float(parse == "ok"), done, False, info

    def _crash_once(self):
        """Option crash_once=PATH: the first process to step an env with it dies on the spot (the
        worker-loss tests); PATH marks that it happened."""
        if self.crash_marker and not os.path.exists(self.crash_marker):
            open(self.crash_marker, "w").close()
            os._exit(17)

    def scripted_response(self, policy, rng):
        if policy == "oracle":
            return f"ANSWER: {self.next}"
        if policy == "random":
            return "no idea" if rng.random() < 0.25 else f"ANSWER: {int(rng.integers(1, self.target + 1))}"
        if policy == "stubborn":
            return "ANSWER: 1"
        raise ValueError(f"unknown policy {policy!r}")


class ReleaseFileEnv(CountEnv):
    """CountEnv whose every turn after the first loads an installed release file, as a release look
    loads its pictures: option release_file="BENCHMARK:PATH" (release_assets.read)."""

    def _step(self, action):
        if self.turns >= 1:
            benchmark, path = self.options["release_file"].split(":", 1)
            release_assets.read(benchmark, path)
        return super()._step(action)


COLOURS = {"red": (220, 30, 30), "green": (30, 180, 30), "blue": (30, 30, 220), "yellow": (230, 220, 20)}


class ChoiceEnv(TextEnv):
    """Three rounds: which colour is the square in the image? Options A-D in a seeded order."""

    suite = "looptest"
    default_history = "last:1"

    def _reset(self, seed, options):
        self.rng = np.random.default_rng(seed)
        self.round = 0
        self.correct = 0
        return self._question()

    def _question(self):
        names = list(COLOURS)
        self.choices = [names[i] for i in self.rng.permutation(len(names))]
        self.answer = int(self.rng.integers(0, len(names)))
        size = int(self.options.get("size", 8))
        frame = np.zeros((size, size, 3), np.uint8)
        frame[:, :] = COLOURS[self.choices[self.answer]]
        frame[0, 0] = (self.round, 0, 0)  # a different frame per round even for equal colours
        labelled = " ".join(f"{chr(65 + i)}) {name}" for i, name in enumerate(self.choices))
        return observation(
            f"Round {self.round + 1}. Colour of the square? {labelled}", images=[frame], options=self.choices
        )

    def _step(self, action):
        text = action.strip().upper()[:1]
        if text not in "ABCD" or not text:
            parse, parsed = "parse_failure", None
        else:
            parse, parsed = "ok", text
            self.correct += (ord(text) - 65) == self.answer
        self.round += 1
        done = self.round == 3
        obs = self._question() if not done else observation("Done.")
        info = {"parse": parse, "parsed": parsed}
        if done:
            info["episode"] = {"correct": self.correct, "rounds": 3}
        return obs, float(parse == "ok"), done, False, info

    def scripted_response(self, policy, rng):
        if policy == "oracle":
            return chr(65 + self.answer)
        return chr(65 + int(rng.integers(0, 4)))


class DuelEnv(TextEnv):
    """Nim with 1-3 stones per move; the player who takes the last stone wins. An invalid move
    passes the turn."""

    suite = "looptest"
    num_players = 2

    def _reset(self, seed, options):
        self.pile = 5 + seed % 7
        self.player = 0
        self.moves = [[], []]
        return self._obs("New game.")

    def _obs(self, news):
        return observation(f"{news} Pile: {self.pile}. Player {self.player}, take 1-3: 'TAKE k'.", player=self.player)

    def _step(self, action):
        match = re.search(r"TAKE\s+(\d+)", action)
        mover = self.player
        if match is None:
            parse, parsed = "parse_failure", None
        else:
            parsed = int(match.group(1))
            parse = "ok" if 1 <= parsed <= min(3, self.pile) else "invalid"
        if parse == "ok":
            self.pile -= parsed
            self.moves[mover].append(parsed)
        done = self.pile == 0
        info = {"parse": parse, "parsed": parsed}
        if done:
            info["episode"] = {"winner": mover, "moves": self.moves}
        self.player = 1 - mover
        return self._obs(f"Player {mover} said {action!r}."), float(done), done, False, info

    def scripted_response(self, policy, rng):
        if policy == "oracle":
            return f"TAKE {self.pile % 4 or 1}"
        return f"TAKE {int(rng.integers(1, 4))}"


def summarize(episodes):
    table = Table("looptest outcomes", ["env", "agent", "episodes", "success", "mean mistakes"])
    groups = {}
    for e in episodes:
        groups.setdefault((e["env_id"], e["agent"]), []).append(e)
    for (env_id, agent), group in sorted(groups.items()):
        if env_id in ("looptest/count", "releasetest/count"):
            success = wilson(sum(e["success"] for e in group), len(group))
            mistakes = mean_ci([e["mistakes"] for e in group])
        elif env_id == "looptest/choice":
            success = wilson(sum(e["correct"] for e in group), 3 * len(group))
            mistakes = mean_ci([3 - e["correct"] for e in group])
        else:
            success = wilson(sum(e["winner"] == 0 for e in group), len(group))
            mistakes = "n/a"
        table.rows.append([env_id, agent, len(group), success, mistakes])
    return [table]


def plot(episodes, out_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    turns = [e["turns"] for e in episodes]
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.hist(turns, bins=10)
    ax.set_xlabel("turns per episode")
    path = out_dir / "looptest_turns.png"
    fig.savefig(path)
    plt.close(fig)
    return [("Turns per episode", path)]


envs.register("looptest/count", CountEnv, description="say 1..N")
envs.register("looptest/choice", ChoiceEnv, description="colour of a square, multiple choice with images")
envs.register("looptest/duel", DuelEnv, description="two-player Nim")
envs.register("releasetest/count", ReleaseFileEnv, description="say 1..N, loading a release file every turn")
metrics.register("looptest", summarize, plot)
