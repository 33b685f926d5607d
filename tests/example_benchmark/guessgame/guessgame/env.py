"""``guess/number``: find a hidden integer in [low, high]; each wrong guess is answered "Higher." or
"Lower.". A reply is "Guess: N" (``guessgame.parser``); a reply without it is a parse failure and
a number outside [low, high] is invalid, and both use a guess. Reward 1 for the correct guess.

Options: ``low`` (1) and ``high`` (100), integers in [0, 10**6] with low < high; ``max_guesses``
(7, in [1, 1000]: bisection needs at most 7 for 1..100); ``images`` (False: text only; True: each
turn carries a frame of the range still open, drawn by ``guessgame.look``).

Scripted agents: "oracle" names the hidden number, "bisect" halves the range the answers so far
leave open (the best play without the secret), "random" guesses uniformly in [low, high].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cogsim.envs import register
from cogsim.envs.base import ResetNeeded, TextEnv, observation
from cogsim.envs.options import flag, integer, known
from guessgame.parser import format_guess, parse_guess

OPTIONS = ("low", "high", "max_guesses", "images")
MAX_NUMBER = 10**6
# The secret's own random stream: play_scripted seeds the scripted agents with the episode seed itself,
# so a secret drawn from default_rng(seed) would be the random agent's first guess.
SECRET_STREAM = 0x5EC


class GuessEnv(TextEnv):
    suite = "guess"  # the metric suite that reads this env's episodes (the family's name)
    default_history = "full"  # the player needs every earlier answer
    scripted_policies = ("oracle", "bisect", "random")
    batches_frames = True  # it hands its frames on and never reads their pixels
    look = "cogsim"  # its one picture, drawn by cogsim's renderer (guessgame.look)

    def __init__(self, env_id: str = "guess/number", **options: Any):
        known(options, env_id, OPTIONS)
        super().__init__(env_id, **options)
        self.low = integer(options, "low", 1, 0, MAX_NUMBER - 1)
        self.high = integer(options, "high", 100, self.low + 1, MAX_NUMBER)
        self.max_guesses = integer(options, "max_guesses", 7, 1, 1000)
        self.images = flag(options, "images", False)
        self.system_prompt = "You play a guessing game. End every reply with a line 'Guess: N'."
        self.done = True

    def _reset(self, seed: int, options: dict) -> dict:
        self.secret = int(np.random.default_rng([seed, SECRET_STREAM]).integers(self.low, self.high + 1))
        self.open_low, self.open_high = self.low, self.high  # what the answers so far allow
        self.guesses = self.parse_failures = self.invalid = 0
        self.done = False
        return self._observe(
            f"I am thinking of an integer from {self.low} to {self.high}. You have {self.max_guesses} guesses."
        )

    def _step(self, action: str):
        if self.done:
            raise ResetNeeded(f"{self.env_id}: the episode is over; call reset()")
        self.guesses += 1
        number = parse_guess(action)
        solved = False
        if number is None:
            self.parse_failures += 1
            parse, answer = "parse_failure", "I could not read a guess: end your reply with 'Guess: N'."
        elif not self.low <= number <= self.high:
            self.invalid += 1
            parse, answer = "invalid", f"{number} is outside {self.low}..{self.high}."
        elif number == self.secret:
            parse, answer, solved = "ok", "Correct!", True
        elif number < self.secret:
            self.open_low = max(self.open_low, number + 1)
            parse, answer = "ok", "Higher."
        else:
            self.open_high = min(self.open_high, number - 1)
            parse, answer = "ok", "Lower."
        self.done = solved or self.guesses >= self.max_guesses
        info: dict = {"parse": parse, "parsed": number}
        if self.done:
            info["episode"] = self._outcome(solved)
        left = self.max_guesses - self.guesses
        return self._observe(f"{answer} Guesses left: {left}."), float(solved), self.done, False, info

    def _outcome(self, solved: bool) -> dict:
        """What the metrics read: ``info["episode"]`` of the last step (JSON-able), with the record of
        the pictures every image env keeps (``pictures_record``: its look and how frames were sent)."""
        return {
            "solved": solved,
            "guesses": self.guesses,
            "parse_failures": self.parse_failures,
            "invalid": self.invalid,
            "range": self.high - self.low + 1,
            **self.pictures_record(),
        }

    def shows_pictures(self) -> bool:
        return self.images

    def _observe(self, text: str) -> dict:
        frames = ()
        if self.images:  # the scene kind is the look's; cogsim imports the look through the family record
            frames = tuple(self.renderer().guess_range([(self.low, self.high, self.open_low, self.open_high)]))
        return observation(text, frames)

    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        if policy == "oracle":
            return format_guess(self.secret)
        if policy == "bisect":
            return "Halving what is left.\n" + format_guess((self.open_low + self.open_high) // 2)
        if policy == "random":
            return format_guess(int(rng.integers(self.low, self.high + 1)))
        raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")


register("guess/number", GuessEnv, description="Guess a hidden integer from higher/lower answers (example)")

DEMO_SUITES = [{"env_id": "guess/number", "options": {}, "episodes": 4, "agents": ["oracle", "bisect", "random"]}]
