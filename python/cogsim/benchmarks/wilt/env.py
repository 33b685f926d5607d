"""WILT multi-turn envs: "wilt/full" (the release's 50 rules), "wilt/lite" (its 10), "wilt/prototype"
(cogsim's earlier 50-rule list), "wilt/procedural" (generated).

Default episode rules (``protocol="release"``, those of RiotGames/WILT's harness): the instruction, then
one reply per turn. A reply containing "final guess:" (or "### final guess") is the single final guess:
code in backticks, checked point by point as the release checks it (``cogsim.benchmarks.wilt.verdict``): its value
compared with ``==`` to the rule's bool, stopping at the first point that fails; a mismatch there is
"Sorry, that's not the correct rule. ..." and a guess that raises there is "Invalid lambda function.",
both 0 points; passing every point is correct. Without backticks the guess is sent back once
("Please wrap your function in backticks..."), then the episode aborts. A reply containing
"test case:" is a test: "Result for input (1.0, 2.0, 3.0): True. Attempts Remaining: 30" (the count
before this test), "Maximum attempts reached. Please make a guess." once ``max_attempts`` tests are
used (the episode goes on), or a short complaint if no numbers can be read. Any other reply gets the
format complaint and costs one test attempt, a second one in a row aborts; an empty reply costs an
attempt (retried once, then abort). Using more attempts than allowed ends the episode with 0.

``protocol="prototype"`` keeps cogsim's earlier rules: its instruction, "(2.0, 4.0, 6.0): True.
Attempts Remaining: 29" feedback, the episode ends after ``max_parse_failures`` consecutive
unparseable replies or at a test beyond the budget.

Options:
    rule_index:         which rule of the split (default: episode seed modulo the split size)
    max_attempts:       test cases allowed (30)
    strict_inputs:      refuse numbers typed with more than 3 digits (the prompt's rule; the paper's
                        harness accepted any number, so the default is False); a refused test uses no attempt
    max_parse_failures: consecutive unparseable replies that end the episode (2)
    hypothesis_size / hypothesis_seed: the generated hypothesis space for the reduction curve (2000, 0)
    given_tests:        test-swap mode: [[x, y, z], ...] shown with their results; one turn, guess only
    swap_source:        label of the agent whose tests were given (recorded for the test-swap table)
    prompt_as_system:   put the instruction in ``system_prompt`` and open with "Please begin."
    protocol:           "release" (default) or "prototype" (see above); recorded in every episode
    equivalence:        point set of the final check: "release" (default) or "strict" (cogsim's float traps)
    raises:             "release" (default): a guess that raises before its first mismatch is invalid, one
                        that raises only later is just wrong; "invalid": invalid whenever it raises
                        anywhere; "false": raising points read as False (cogsim's earlier readings)
    compare:            "equals" (default, the release): the guess's value == the rule's bool (2 is neither
                        True nor False); "truthiness": its truth value (cogsim's earlier reading)
    prompt_file:        read the instruction from this file instead ("{max_attempts}" is replaced; a run records
                        the file's content)
    approx:             "approximately correct" by the deterministic "proxy" (default, see cogsim.benchmarks.wilt.judge)
                        or cogsim's earlier "jaccard" >= 0.9
    judge / judge_options: an agent spec (e.g. "openai:MODEL") and its options: a model judges every wrong,
                        valid guess with the project's rubric, as the paper did; overrides ``approx``
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from cogsim.benchmarks.wilt import EQUIVALENCE_MODES, RuleError, compile_rule, parser, prompts
from cogsim.benchmarks.wilt import verdict as verdicts
from cogsim.benchmarks.wilt.agents import best_split, load_space, random_test
from cogsim.benchmarks.wilt.generator import procedural_rule
from cogsim.benchmarks.wilt.splits import RELEASE_FULL_SOURCES, SPLITS, TIERS
from cogsim.envs import register
from cogsim.envs.base import TextEnv, observation
from cogsim.envs.options import choice, flag, integer, known, shown

DEFAULTS = {
    "max_attempts": 30,
    "strict_inputs": False,
    "max_parse_failures": 2,
    "hypothesis_size": 2000,
    "hypothesis_seed": 0,
    "prompt_as_system": False,
    "protocol": "release",
    "equivalence": "release",
    "raises": "release",
    "compare": "equals",
    "prompt_file": None,
    "approx": "proxy",
    "judge": None,
    "judge_options": None,
}
APPROX_METHODS = ("proxy", "jaccard")
PROTOCOLS = ("release", "prototype")
SPLIT_NAMES = ("full", "lite", "prototype", "procedural")


class WiltEnv(TextEnv):
    suite = "wilt"
    default_history = "full"
    scripted_policies = ("oracle", "random", "elimination")
    file_options = {"prompt_file": "text"}

    def __init__(self, env_id: str = "", split: str = "full", **options: Any):
        split = choice({"split": split}, "split", "full", SPLIT_NAMES)
        known(options, env_id or f"wilt/{split}", sorted([*DEFAULTS, "rule_index", "given_tests", "swap_source"]))
        super().__init__(env_id, split=split, **options)
        self.split = split
        self.config = _checked({**DEFAULTS, **options}, split)
        self.protocol = self.config["protocol"]
        self.judge = None
        if self.config["judge"] is not None:
            from cogsim.benchmarks.wilt.judge import Judge

            judge_options = self.config["judge_options"] or {}
            if not isinstance(judge_options, dict):
                raise ValueError(f"judge_options must be a dict of agent options, got {type(judge_options).__name__}")
            self.judge = Judge(self.config["judge"], **judge_options)
        if self.config["prompt_file"] is not None:
            self._instruction(self.config)  # fail early on an unreadable file
        if self.config["prompt_as_system"]:
            self.system_prompt = self._instruction(self.config)

    def _instruction(self, config: dict) -> str:
        attempts = int(config["max_attempts"])
        if config.get("prompt_file") is not None:
            return prompts.load_prompt(config["prompt_file"], attempts)
        if config["protocol"] == "release":
            return prompts.RELEASE_INSTRUCTION.format(max_attempts=attempts)
        return prompts.first_prompt(attempts)

    # -- episode state ---------------------------------------------------------------------------
    def _reset(self, seed: int, options: dict) -> dict:
        config = _checked({**self.config, **options}, self.split) if options else self.config
        self.max_attempts = int(config["max_attempts"])
        self.strict = bool(config["strict_inputs"])
        self.max_parse_failures = int(config["max_parse_failures"])
        self.rule_index, self.hidden_source, self.tier = self._pick_rule(seed, config.get("rule_index"))
        self.hidden = compile_rule(self.hidden_source)
        self.space = load_space(int(config["hypothesis_size"]), int(config["hypothesis_seed"]))
        self.survivors = np.ones(len(self.space.rules), dtype=bool)
        self.tests: list[list] = []
        self.reduction: list[float] = []
        self.repeats = 0
        self.parse_failures = 0
        self.consecutive_failures = 0
        self.turns = 0
        self.done = False
        self.swap = config.get("given_tests") is not None
        self.swap_source = config.get("swap_source")
        self.protocol = config["protocol"]
        self.equivalence_mode = config["equivalence"]
        self.raises_mode = config["raises"]
        self.compare_mode = config["compare"]
        self.attempts = 0  # the release's counter: tests plus replies that cost an attempt
        self.mulligan = False  # the release's one-retry flag
        self.aborted = False
        self.points = 0.0
        self.approx_mode = config["approx"]
        self.approx: dict = {}
        if self.swap:
            for point in _check_tests(config["given_tests"]):
                self._record(point)
            self.max_attempts = len(self.tests)
            return observation(prompts.swap_prompt(self.tests, int(config["max_attempts"])))
        if config["prompt_as_system"]:
            return observation("Please begin.")
        return observation(self._instruction(config))

    def _pick_rule(self, seed: int, rule_index: Optional[int]) -> tuple[int, str, str]:
        if self.split == "procedural":
            return -1, procedural_rule(seed), "procedural"
        rules = SPLITS[self.split]
        index = seed % len(rules) if rule_index is None else int(rule_index)  # the option check let an integer
        return index, rules[index], TIERS[self.split][index]

    def _record(self, point) -> bool:
        point = tuple(float(v) for v in point)
        result = self.hidden(*point)
        if any(tuple(t[:3]) == point for t in self.tests):
            self.repeats += 1
        self.tests.append([*point, result])
        self.survivors &= self.space.consistent(point, result)
        self.reduction.append(1.0 - float(self.survivors.mean()))
        return result

    # -- turns -----------------------------------------------------------------------------------
    def _step(self, action: str):
        if self.done:
            raise RuntimeError("episode is over; call reset()")
        self.turns += 1
        if self.protocol == "release" and not self.swap:
            return self._step_release(action)
        parsed = parser.parse_response(action, self.strict)
        if isinstance(parsed, parser.ParseFailure):
            return self._parse_failure(parsed)
        self.consecutive_failures = 0
        if isinstance(parsed, parser.TestCase):
            if len(self.tests) >= self.max_attempts:
                return self._finish(
                    None, prompts.MAX_ATTEMPTS_REPLY, "invalid", parser.describe(parsed), out_of_tests=True
                )
            result = self._record(parsed.point)
            reply = prompts.result_reply(parsed.point, result, self.max_attempts - len(self.tests))
            return observation(reply), 0.0, False, False, {"parse": "ok", "parsed": parser.describe(parsed)}
        return self._guess(parsed)

    # -- the release's episode rules ---------------------------------------------------------------
    def _step_release(self, action: str):
        if not isinstance(action, str):
            raise TypeError(f"action must be a str, got {type(action).__name__}")
        kind = parser.release_kind(action)
        if kind == "guess":
            source = parser.release_guess_text(action)
            if source is None:
                if self.mulligan:
                    return self._abort(prompts.RELEASE_ABORT_GUESS)
                self.mulligan = True
                self.parse_failures += 1
                return self._go_on(prompts.RELEASE_WRAP_COMPLAINT, "parse_failure", None)
            return self._guess(parser.FinalGuess(source))
        if kind == "test":
            self.mulligan = False
            point = parser.release_test_point(action)
            if isinstance(point, str):
                self.parse_failures += 1
                return self._go_on(point, "parse_failure", None)
            if len(point) != 3:
                self.parse_failures += 1
                return self._go_on(prompts.release_numbers_reply(3), "parse_failure", None)
            parsed = {"action": "test", "point": list(point)}
            if self.strict and not parser.release_typed_short(action):
                self.parse_failures += 1
                return self._go_on(prompts.STRICT_DIGITS_REPLY, "parse_failure", parsed)
            if self.attempts >= self.max_attempts:
                return self._go_on(prompts.RELEASE_MAX_ATTEMPTS_REPLY, "ok", parsed)
            remaining = self.max_attempts - self.attempts
            result = self._record(point)
            self.attempts += 1
            return self._go_on(prompts.release_result_reply(point, result, remaining), "ok", parsed)
        # an empty reply or one with neither marker: one retry that costs an attempt, then abort
        self.parse_failures += 1
        if self.mulligan:
            return self._abort(prompts.RELEASE_ABORT if kind == "other" else "")
        self.mulligan = True
        self.attempts += 1
        reply = prompts.RELEASE_FORMAT_COMPLAINT if kind == "other" else ""
        if self.attempts > self.max_attempts:
            return self._abort(reply)
        return self._go_on(reply, "parse_failure", None)

    def _release_rule_label(self) -> str:
        """How the release names the rule in its wrong-guess reply: its line of the rule table."""
        if self.split == "full":
            return f"'{self.rule_index + 1}': {RELEASE_FULL_SOURCES[self.rule_index]},"
        if self.split == "lite":
            return f"'{self.rule_index + 1}': {self.hidden_source},"
        return self.hidden_source

    def _go_on(self, reply: str, parse: str, parsed):
        return observation(reply), 0.0, False, False, {"parse": parse, "parsed": parsed}

    def _abort(self, reply: str):
        self.aborted = True
        return self._finish(None, reply, "parse_failure", None)

    def _parse_failure(self, failure: parser.ParseFailure):
        self.parse_failures += 1
        self.consecutive_failures += 1
        if self.consecutive_failures >= self.max_parse_failures or self.swap:
            return self._finish(None, failure.reply, "parse_failure", None)
        return observation(failure.reply), 0.0, False, False, {"parse": "parse_failure", "parsed": None}

    def _guess(self, parsed: parser.FinalGuess):
        try:
            guess = compile_rule(parsed.source)
            # evaluation can exceed the integer bounds (RuleError): the guess is invalid, not a crash
            verdict = verdicts.final_verdict(
                guess,
                self.hidden,
                equivalence=self.equivalence_mode,
                raises=self.raises_mode,
                compare=self.compare_mode,
            )
        except RuleError as error:
            reply = (
                prompts.INVALID_GUESS_REPLY
                if self.protocol == "release"
                else f"{prompts.INVALID_GUESS_REPLY} ({error})"
            )
            return self._finish(None, reply, "invalid", parser.describe(parsed), invalid_guess=parsed.source)
        if self.protocol == "prototype" or self.swap:
            reply = prompts.CORRECT_REPLY if verdict.equivalent else prompts.WRONG_REPLY
        elif verdict.invalid:
            reply = prompts.INVALID_GUESS_REPLY
        elif verdict.equivalent:
            reply = prompts.release_correct_reply()
        else:
            reply = prompts.release_wrong_reply(self._release_rule_label())
        if verdict.equivalent:  # the release's score: 1000 plus the unused share of the budget
            used = self.attempts if self.protocol == "release" else len(self.tests)
            self.points = (
                prompts.CORRECT_POINTS + 100.0 * (1 - used / self.max_attempts) if self.max_attempts else 1000.0
            )
        self.approx = self._approximately(guess, verdict)
        return self._finish((guess, verdict), reply, "ok", parser.describe(parsed))

    def _approximately(self, guess, verdict) -> dict:
        if self.judge is not None and not verdict.equivalent and not verdict.invalid:
            return self.judge.judge(guess.source, self.hidden_source)
        if self.approx_mode == "jaccard":
            return {"method": "jaccard", "approx_correct": verdict.jaccard_approximately_correct}
        return {"method": "proxy", "approx_correct": verdict.approximately_correct}

    def _finish(self, judged, reply: str, parse: str, parsed, out_of_tests: bool = False, invalid_guess=None):
        self.done = True
        episode = self._episode(judged, invalid_guess, out_of_tests)
        info = {"parse": parse, "parsed": parsed, "episode": episode}
        reward = 1.0 if episode["correct"] else 0.0
        return observation(reply), reward, True, False, info

    def _episode(self, judged, invalid_guess, out_of_tests: bool) -> dict:
        guess, verdict = judged if judged else (None, None)
        return {
            "split": self.split,
            "rule_index": self.rule_index,
            "tier": self.tier,
            "hidden": self.hidden_source,
            "guess": guess.source if guess else invalid_guess,
            "guessed": guess is not None,
            "invalid_guess": invalid_guess is not None,
            "out_of_tests": out_of_tests,
            "correct": bool(verdict and verdict.equivalent),
            "approx_correct": bool(self.approx.get("approx_correct")),
            "approx_method": self.approx.get("method", "judge:" + self.judge.spec if self.judge else self.approx_mode),
            "judge_category": self.approx.get("category"),
            "agreement": verdict.agreement if verdict else None,
            "jaccard": verdict.jaccard if verdict else None,
            "relation": verdict.relation if verdict else None,
            "inclusion_ratio": verdict.inclusion_ratio if verdict else None,
            "guess_operators": guess.operator_count if guess else None,
            "guess_length": guess.length if guess else None,
            "hidden_operators": self.hidden.operator_count,
            "hidden_length": self.hidden.length,
            "num_tests": len(self.tests),
            "repeats": self.repeats,
            "parse_failures": self.parse_failures,
            "tests": [list(t) for t in self.tests],
            "reduction": list(self.reduction),
            "hypothesis_size": len(self.space.rules),
            "survivors": int(self.survivors.sum()),
            "swap": self.swap,
            "swap_source": self.swap_source,
            "max_attempts": self.max_attempts,
            "strict_inputs": self.strict,
            "protocol": self.protocol,
            "equivalence": self.equivalence_mode,
            "raises": self.raises_mode,
            "compare": self.compare_mode,
            "invalid": bool(verdict and verdict.invalid),
            "aborted": self.aborted,
            "points": self.points,
            "attempts": self.attempts,
        }

    # -- scripted agents -------------------------------------------------------------------------
    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        if policy == "oracle":
            return parser.final_guess_text(self.hidden_source)
        if policy == "random":
            return self._random_response(rng)
        if policy == "elimination":
            return self._elimination_response()
        raise ValueError(f"unknown scripted policy {policy!r}; known: {', '.join(self.scripted_policies)}")

    def _random_response(self, rng: np.random.Generator) -> str:
        if len(self.tests) < self.max_attempts:
            return "I will try a random point.\n" + parser.test_case_text(random_test(rng, self.strict))
        survivors = np.flatnonzero(self.survivors)
        pool = survivors if survivors.size else np.arange(len(self.space.rules))
        return parser.final_guess_text(self.space.rules[int(rng.choice(pool))])

    def _elimination_response(self) -> str:
        if len(self.tests) < self.max_attempts:
            tested = {tuple(t[:3]) for t in self.tests}
            index = best_split(self.space, self.survivors, tested, self.strict)
            if index is not None:
                return "Splitting the surviving hypotheses.\n" + parser.test_case_text(self.space.pool[index])
        if self.survivors.any():
            return parser.final_guess_text(self.space.rules[self.space.simplest(self.survivors)])
        return parser.final_guess_text(self._least_wrong())

    def _least_wrong(self) -> str:
        """With no consistent hypothesis left, the simplest of those with the fewest wrong predictions."""
        points = np.array([t[:3] for t in self.tests], dtype=np.float64)
        results = np.array([t[3] for t in self.tests], dtype=bool)
        from cogsim.benchmarks.wilt import evaluate_many

        truth = evaluate_many(self.space.compiled, points[:, 0], points[:, 1], points[:, 2])
        errors = (truth != results).sum(axis=1)
        best = errors == errors.min()
        return self.space.rules[self.space.simplest(best)]


# Integer options: their ranges (the hypothesis space is generated on first use: its size bounds the time).
INTEGER_RANGES = {
    "max_attempts": (0, 10_000),
    "max_parse_failures": (1, 1_000),
    "hypothesis_size": (1, 10_000),
    "hypothesis_seed": (0, 2**32 - 1),
}


def _checked(config: dict, split: str) -> dict:
    """The config, every option checked for type and range (ValueError naming the option)."""
    for name, allowed in (
        ("protocol", PROTOCOLS),
        ("equivalence", EQUIVALENCE_MODES),
        ("raises", verdicts.RAISES),
        ("compare", verdicts.COMPARES),
        ("approx", APPROX_METHODS),
    ):
        choice(config, name, DEFAULTS[name], allowed)
    for name, (low, high) in INTEGER_RANGES.items():
        integer(config, name, DEFAULTS[name], low, high)
    for name in ("strict_inputs", "prompt_as_system"):
        flag(config, name, DEFAULTS[name])
    if config.get("rule_index") is not None and split != "procedural":  # procedural episodes draw their rule
        integer(config, "rule_index", None, 0, len(SPLITS[split]) - 1)
    if config.get("given_tests") is not None:
        _check_tests(config["given_tests"])
    if config.get("swap_source") is not None and not isinstance(config["swap_source"], str):
        raise ValueError(f"swap_source must be a label (str) or None, got {shown(config['swap_source'])}")
    if config["judge"] is not None and not isinstance(config["judge"], str):
        raise ValueError(f"judge must be an agent spec such as 'openai:MODEL' or None, got {shown(config['judge'])}")
    return config


def _check_tests(tests) -> list[tuple[float, float, float]]:
    if not isinstance(tests, (list, tuple)) or len(tests) > INTEGER_RANGES["max_attempts"][1]:
        raise ValueError("given_tests must be a list of at most 10000 [x, y, z] number triples")
    try:
        points = [tuple(float(v) for v in t[:3]) for t in tests]
    except (TypeError, ValueError, OverflowError, IndexError, KeyError):
        raise ValueError("given_tests must be a list of [x, y, z] number triples") from None
    if any(len(p) != 3 for p in points):
        raise ValueError("given_tests must be a list of [x, y, z] number triples")
    if not all(math.isfinite(v) for p in points for v in p):
        raise ValueError("given_tests: every number must be finite (no NaN or infinity)")
    return points


def _factory(split: str):
    def make(env_id: str = "", **options):
        return WiltEnv(env_id, split=split, **options)

    make.file_options = WiltEnv.file_options  # type: ignore[attr-defined]
    return make


register("wilt/full", _factory("full"), description="WILT full split: 50 hidden rules of the paper, 30 tests")
register("wilt/lite", _factory("lite"), description="WILT lite split: 10 hidden rules of the paper, 30 tests")
register(
    "wilt/prototype",
    _factory("prototype"),
    description="WILT with cogsim's earlier 50-rule list (subtraction rules, no magnitude ranges)",
)
register("wilt/procedural", _factory("procedural"), description="WILT with generated hidden rules (seeded)")

DEMO_SUITES = [
    {"env_id": "wilt/lite", "options": {}, "episodes": 4, "agents": ["oracle", "random", "elimination"]},
]
