"""RNG-Bench Matching Pairs: "pairs/single" (one agent) and "pairs/duel" (two agents alternate).

One response flips one card; two flips make a turn. Options (keyword arguments of cogsim.make):
    rows, cols (4, 4): any board with an even number of cards, sides up to 16 (the paper: 4x4 to
    12x14); modality ("text" | "image"); theme for images ("ascii", "poker", "textures", "noise",
    "abstract" (= shapes), "similar_colors" (= colors)); feedback (True): describe each flip's
    result in words; cot (True): chain of thought allowed, else the answer must be the action line
    only; memory_map (False): the oracle condition, a table of every revealed identity still on the
    board injected each turn; max_resp_per_pair (5): budget = this x pairs responses; max_responses
    (None): a fixed total budget instead; look ("release"): images drawn as the release draws them
    (its card image files from the user's installed copy, `cogsim assets`; its text board for the
    "ascii" theme; with memory_map one frame of the live board beside the memory aid; sent as JPEG
    quality 85), or "cogsim" for cogsim's own cards (GL or compositor, sent as PNG); card_width
    (64 for look="release", the release's cell size; 48 for "cogsim"): pixels per card; history
    ("full"): the conversation window the loop keeps; deal ("release"): the released harness's
    seeded shuffle (Python's random.Random(seed)), or "cogsim" for cogsim's SplitMix64 deal;
    coords ("letters"): the release's coordinates and text ("Action: cD", row letter + column
    letter, a bracketed text board, round-by-round messages), or "numbers" for cogsim's earlier
    1-based "Action: (row, column)" with a numbered board and flip-by-flip descriptions;
    max_retries (2): failed responses (parse failure or invalid flip) allowed after the first in one
    flip before the round is forfeited (the first card turned down again, a duel's turn passed),
    None for cogsim's earlier rule (ask again without limit); faces ("release"): with the poker
    theme, the release's choice of faces for the seed from its 54-card deck; "cogsim" for cogsim's
    own (the other themes always draw cogsim's own pictures).
In a duel, obs["player"] is the player to move: a match keeps the turn, a mismatch passes it, and
each player's next observation reports every flip made since its last one (both see all flips).
"""

from __future__ import annotations

import numpy as np

from cogsim import release_assets
from cogsim.benchmarks.rngbench.pairs import agents, game, parser, prompts
from cogsim.benchmarks.rngbench.pairs.game import FACE_UP, FIRST_FLIP, MATCH, MISMATCH, REMOVED, PairsBatch
from cogsim.envs import register
from cogsim.envs.base import TextEnv, observation
from cogsim.envs.options import choice as _choice
from cogsim.envs.options import flag as _flag
from cogsim.envs.options import integer as _integer
from cogsim.envs.options import known as _known

THEMES = {
    "ascii": "ascii",
    "poker": "poker",
    "textures": "textures",
    "noise": "noise",
    "abstract": "shapes",
    "shapes": "shapes",
    "similar_colors": "colors",
    "similar_colours": "colors",
    "colors": "colors",
}
MODALITIES = ("text", "image")
HISTORIES = ("full", "last:3", "last:5", "last:10", "current")
POLICIES = ("oracle", "optimal", "forgetful", "random")
OPTIONS = (
    "rows", "cols", "modality", "theme", "feedback", "cot", "memory_map", "max_resp_per_pair", "max_responses",
    "card_width", "history", "deal", "max_retries", "coords", "faces", "look",
)  # fmt: skip
LOOKS = ("release", "cogsim")


class PairsEnv(TextEnv):
    suite = "pairs"
    batches_frames = True
    default_history = "full"
    scripted_policies = POLICIES
    num_players = 1

    def __init__(self, env_id: str = "pairs/single", **options):
        _known(options, env_id, OPTIONS)
        super().__init__(env_id, **options)
        self.rows, self.cols = game.check_shape(options.get("rows", 4), options.get("cols", 4))
        self.pairs = self.rows * self.cols // 2
        self.modality = _choice(options, "modality", "text", MODALITIES)
        self.theme = _choice(options, "theme", "ascii", tuple(THEMES))
        self.feedback = _flag(options, "feedback", True)
        self.cot = _flag(options, "cot", True)
        self.memory_map = _flag(options, "memory_map", False)
        self.max_resp_per_pair = _integer(options, "max_resp_per_pair", 5, 1, 1000)
        self.max_responses = _integer(options, "max_responses", None, 1, 10**6)
        self.look = _choice(options, "look", "release", LOOKS)
        self.card_width = _integer(options, "card_width", 64 if self.look == "release" else 48, 16, 256)
        self.default_history = _choice(options, "history", "full", HISTORIES)
        self.budget = self.max_responses or self.max_resp_per_pair * self.pairs
        self.deal = _choice(options, "deal", "release", game.DEALS)
        # The release retries a flip twice after a parse failure or an invalid coordinate; a third
        # failure forfeits the round (a first card already up is turned face down; in a duel the
        # turn passes). None: cogsim's earlier rule, a failed response simply asks again.
        self.max_retries = (
            _integer(options, "max_retries", 2, 0, 1000) if options.get("max_retries", 2) is not None else None
        )
        self.coords = prompts.check_coords(_choice(options, "coords", "letters", prompts.COORDS), self.rows, self.cols)
        # faces ("release"): the poker theme draws its faces as the release does for a seed (its 54-card
        # deck); the other themes' pictures are cogsim's own either way. "cogsim": cogsim's PCG64 choice.
        self.faces = _choice(options, "faces", "release", ("release", "cogsim"))
        self.face_order = "release" if self.faces == "release" and THEMES[self.theme] == "poker" else "cogsim"
        self.release_look = self.modality == "image" and self.look == "release"
        self.assets_used = None
        if self.release_look:
            self._check_release_look(options)
        elif self.modality == "image":
            from cogsim.benchmarks.rngbench.pairs.cogsim_look import RELEASE_POKER_DECK, theme_capacity

            capacity = len(RELEASE_POKER_DECK) if self.face_order == "release" else theme_capacity(THEMES[self.theme])
            if self.pairs > capacity:
                raise ValueError(
                    f"theme {self.theme!r} has {capacity} distinct cards, the board needs {self.pairs} pairs"
                )

    def _check_release_look(self, options: dict) -> None:
        """look="release" draws the release's pictures: its letter labels, its faces, its files."""
        from cogsim.benchmarks.rngbench.pairs import look

        if self.coords != "letters":
            raise ValueError(
                "look='release' draws the release's letter coordinates; coords='numbers' needs look='cogsim'"
            )
        if options.get("faces", "release") != "release":
            raise ValueError("faces='cogsim' chooses cogsim's own faces; it needs look='cogsim'")
        look.check_text_layout()  # AssetsMissing: the library its labels' layout needs
        theme = THEMES[self.theme]
        if look.needs_files(theme):
            release_assets.root(look.BENCHMARK)  # AssetsMissing: how to install them, in one line
            self.assets_used = release_assets.used(look.BENCHMARK)  # as episodes record them
            if self.pairs > look.capacity(theme):
                raise ValueError(
                    f"the release's theme {self.theme!r} has {look.capacity(theme)} distinct faces, the "
                    f"board needs {self.pairs} pairs"
                )

    # -- episode ---------------------------------------------------------------------------------
    def _reset(self, seed: int, options: dict) -> dict:
        self.board = game.deal(self.rows, self.cols, seed, method=self.deal)
        self.game = PairsBatch.from_boards([self.board], players=self.num_players)
        self.optimal_responses = game.optimal_responses(self.board)
        self.player_names = list(options.get("players", [])) or None
        self.responses = [0] * self.num_players
        self.parse_failures = [0] * self.num_players
        self.invalid = [0] * self.num_players
        self.forfeits = [0] * self.num_players
        self.failed_attempts = 0  # failed responses in a row for the current flip
        self.inbox: list[list[tuple[str, tuple]]] = [[] for _ in range(self.num_players)]
        self.flip_log: list[int] = []  # every valid flip, row-major card index
        self.system_prompt = prompts.task_prompt(
            self.rows,
            self.cols,
            self.budget,
            self.modality,
            self.cot,
            self.num_players == 2,
            self.coords,
            self.max_retries,
        )
        self.round = 0
        if self.release_look:
            from cogsim.benchmarks.rngbench.pairs.look import ReleaseBoards, needs_files

            theme = THEMES[self.theme]
            if needs_files(theme):
                release_assets.root("rngbench")  # AssetsMissing before the episode starts
            self.release_boards = ReleaseBoards(self.board, theme, seed, self.card_width)
        if self.coords == "numbers":
            self._post(0, "The game begins; every card is face down.", ())
        return self._observation()

    def _post(self, player: int, line: str, revealed: tuple, board: bool = True) -> None:
        """Queues an event with a snapshot of the board (``revealed`` cards shown face up), or a
        line alone (board=False)."""
        snapshot = (self.game.state().copy(), tuple(revealed)) if board else None
        self.inbox[player].append((line, snapshot))

    def _step(self, action: str):
        if self.game.remaining() == 0 or sum(self.responses) >= self.budget:
            raise RuntimeError("the episode is over; call reset() to start another")
        player = self.game.player()
        self.responses[player] += 1
        info: dict = {}
        try:
            row, col = parser.parse_flip(action, cot=self.cot, coords=self.coords, rows=self.rows, cols=self.cols)
        except parser.ParseError as error:
            self.parse_failures[player] += 1
            info.update(parse="parse_failure", parsed=None)
            if self.coords == "letters":
                line = (
                    f"Your previous reply was not executed: {error}. The board is unchanged." if self.feedback else ""
                )
            else:
                line = f"Your answer could not be parsed: {error}." if self.feedback else ""
            self._post(player, line, (), board=self.coords == "numbers")
        else:
            info["parsed"] = [row + 1, col + 1]
            self._flip(player, row, col, info)
        if info.get("parse") == "ok":
            self.failed_attempts = 0
        else:
            self.failed_attempts += 1
            if self.max_retries is not None and self.failed_attempts > self.max_retries:
                self._forfeit(player)
                info["forfeit"] = True
        done = self.game.remaining() == 0
        truncated = not done and sum(self.responses) >= self.budget
        reward = 1.0 if info.get("outcome") == "match" else 0.0
        if done or truncated:
            info["episode"] = self._episode()
            return observation(self._final_text(), player=self.game.player()), reward, done, truncated, info
        return self._observation(), reward, False, False, info

    def _flip(self, player: int, row: int, col: int, info: dict) -> None:
        inside = 0 <= row < self.rows and 0 <= col < self.cols
        first = self.game.pending()
        outcome = int(self.game.flip([row * self.cols + col])[0]) if inside else game.INVALID
        if outcome == game.INVALID:
            self.invalid[player] += 1
            info.update(parse="invalid", outcome="invalid")
            reason = self._invalid_reason(row, col)
            where = prompts.coordinate(row, col, self.coords)
            if self.coords == "letters":
                line = f"Your previous reply was not executed: {where} is not a valid choice ({reason}). The board is unchanged."
            else:
                line = f"Invalid flip {where}: {reason}. Flip another card."
            self._post(player, line if self.feedback else "", (), board=self.coords == "numbers")
            return
        self.flip_log.append(row * self.cols + col)
        info.update(parse="ok", outcome={FIRST_FLIP: "first", MATCH: "match", MISMATCH: "mismatch"}[outcome])
        identity = int(self.board[row, col])
        revealed = ((row, col),) if outcome == FIRST_FLIP else ((row, col), divmod(first, self.cols))
        if self.coords == "letters":
            self._post_round(player, row, col, outcome, first, revealed)
            return
        result = {
            FIRST_FLIP: "",
            MATCH: " Match! The pair is removed.",
            MISMATCH: " No match; both cards are turned face down.",
        }[outcome]
        shown = identity if self.modality == "text" else None
        for other in range(self.num_players):
            if other == player:
                line = parser.describe_flip("You", row, col, shown) + result if self.feedback else ""
            else:
                line = parser.describe_flip("Your opponent", row, col, shown) + result
            self._post(other, line, revealed)

    def _forfeit(self, player: int) -> None:
        """Ends the round after max_retries + 1 failed responses: the first card, if one is up,
        is turned face down again; in a duel the turn passes."""
        self.failed_attempts = 0
        self.forfeits[player] += 1
        arrays = self.game.arrays
        pending = self.game.pending()
        if pending >= 0:
            arrays["state"][int(arrays["offset"][0]) + pending] = game.FACE_DOWN
            arrays["pending"][0] = -1
            where = prompts.coordinate(*divmod(pending, self.cols), self.coords)
        if self.num_players == 2:
            arrays["player"][0] = 1 - player
        attempts = self.max_retries + 1
        undo = f" Your first card {where} is face down again." if pending >= 0 else ""
        passes = " The turn passes to your opponent." if self.num_players == 2 else ""
        self._post(
            player, f"No valid flip in {attempts} attempts: this round is forfeited.{undo}{passes}", (), board=False
        )
        if self.num_players == 2:
            flipped = f" after flipping {where}, which is face down again" if pending >= 0 else ""
            self._post(
                1 - player,
                f"Your opponent made no valid flip in {attempts} attempts{flipped}; "
                "its round is forfeited and the turn is yours.",
                (),
                board=False,
            )

    def _post_round(self, player: int, row: int, col: int, outcome: int, first: int, revealed: tuple) -> None:
        """The release's message structure: the mover sees the board after its first flip, then both
        cards revealed with the verdict and the score; in a duel the opponent gets the whole turn
        (both coordinates, the verdict, the board during the reveal) once it is resolved."""
        if outcome == FIRST_FLIP:
            self._post(player, "The board after your first flip:", revealed)
            return
        scores = self.game.scores()
        verdict = (
            "Match! The pair is removed." if outcome == MATCH else "No match: both cards are turned face down again."
        )
        if self.num_players == 1:
            tail = f"Score: {scores[0]}. Pairs remaining: {self.game.remaining()}."
        else:
            tail = (
                f"Score: you {scores[player]}, opponent {scores[1 - player]}. Pairs remaining: {self.game.remaining()}."
            )
        self._post(player, "Both cards revealed:", revealed)
        self._post(player, f"{verdict} {tail}" if self.feedback else "", (), board=False)
        if self.num_players == 2:
            other = 1 - player
            one = prompts.coordinate(*divmod(first, self.cols), self.coords)
            two = prompts.coordinate(row, col, self.coords)
            self._post(
                other,
                f"Your opponent flipped {one} and then {two} ({'a match' if outcome == MATCH else 'no match'}); "
                "the board during the reveal:",
                revealed,
            )
            self._post(other, f"Score: you {scores[other]}, opponent {scores[player]}.", (), board=False)

    def _invalid_reason(self, row: int, col: int) -> str:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            return f"rows are 1..{self.rows} and columns 1..{self.cols}"
        if self.game.state()[row, col] == REMOVED:
            return "that card was already removed"
        return "that card is already face up"

    # -- observations ----------------------------------------------------------------------------
    def _observation(self) -> dict:
        player = self.game.player()
        events, self.inbox[player] = self.inbox[player], []
        parts, images = [], []
        for line, snapshot in events:
            if snapshot is None:
                if line:
                    parts.append(line)
                continue
            state, revealed = snapshot
            if self.modality == "text":
                parts.append(
                    (line + "\n" if line else "") + prompts.board_text(self.board, state, revealed, self.coords)
                )
            else:
                parts.append(line or "The board:")
                images.append((state, revealed))
        if self.coords == "letters":
            return self._letters_observation(player, parts, images)
        if self.num_players == 2:
            mine, theirs = self.game.scores()[player], self.game.scores()[1 - player]
            parts.append(f"Pairs: you {mine}, your opponent {theirs}.")
        if self.memory_map:
            parts.append(
                prompts.memory_text(
                    game.known_cards(self.board, self.game.state(), self.game.seen()), self.coords, self.pairs
                )
            )
        pending = self.game.pending()
        if pending >= 0:
            r, c = divmod(pending, self.cols)
            parts.append(f"({r + 1}, {c + 1}) is face up: flip the second card of this turn.")
        else:
            parts.append("Flip the first card of a turn.")
        parts.append(f"Responses left: {self.budget - sum(self.responses)}.")
        return observation("\n\n".join(parts), images=self._render(images), player=player)

    def _letters_observation(self, player: int, parts: list, images: list) -> dict:
        """Round start: the score, the pairs remaining and the current board, then the instruction;
        after a first flip: the instruction for the second card."""
        pending = self.game.pending()
        if pending < 0:
            self.round += 1
            scores = self.game.scores()
            if self.num_players == 1:
                parts.append(f"Score: {scores[0]}. Pairs remaining: {self.game.remaining()}.")
            else:
                parts.append(
                    f"Your turn. Score: you {scores[player]}, opponent {scores[1 - player]}. "
                    f"Pairs remaining: {self.game.remaining()}."
                )
            state = self.game.state().copy()
            if self.modality == "text":
                parts.append(
                    f"Round {self.round}, the board now:\n" + prompts.board_text(self.board, state, (), self.coords)
                )
            else:
                parts.append(f"Round {self.round}, the board now:")
                images.append((state, ()))
        if self.memory_map:
            # The release's oracle condition: beside the live board, a memory aid with every card
            # seen so far that is still on the board shown face up.
            seen = tuple(
                tuple(int(v) for v in rc) for rc in zip(*np.nonzero(self.game.seen() & (self.game.state() != REMOVED)))
            )
            state = self.game.state().copy()
            note = "Memory aid (no new information): every card revealed so far that is still on the board, face up:"
            if self.modality == "text":
                parts.append(note + "\n" + prompts.board_text(self.board, state, seen, self.coords))
            elif self.release_look:
                # As the release sends it: one frame, the live board (left) beside the memory aid (right).
                live_state, live_revealed = images.pop() if images else (state, ())
                parts.append(
                    "Memory aid (no new information): the image shows the live board you act on on the left and, "
                    "on the right, every card revealed so far that is still on the board, face up."
                )
                images.append((live_state, live_revealed, seen))
            else:
                parts.append(note + " the last image.")
                images.append((state, seen))
        hint = "Thought: ...\nAction: <coordinate>" if self.cot else "Action: <coordinate>"
        step = (
            "Flip the first card of this round: choose a face-down card."
            if pending < 0
            else "Flip the second card of this round: choose another face-down card."
        )
        parts.append(f"{step}\n{hint}")
        parts.append(f"Responses left: {self.budget - sum(self.responses)}.")
        return observation("\n\n".join(parts), images=self._render(images), player=player)

    def _render(self, snapshots) -> list:
        if not snapshots:
            return []
        if self.release_look:
            from cogsim.benchmarks.rngbench.pairs.look import View

            views = [View(*(self._shown(state, revealed) for revealed in shown)) for state, *shown in snapshots]
            return list(self.release_boards.frames(views))
        from cogsim.benchmarks.rngbench.pairs.cogsim_look import CardBoard

        boards = []
        for state, revealed in snapshots:
            shown = state.copy()
            for r, c in revealed:
                shown[r, c] = FACE_UP
            boards.append(
                CardBoard(
                    self.board,
                    shown,
                    theme=THEMES[self.theme],
                    seed=self.episode_seed,
                    card_width=self.card_width,
                    face_order=self.face_order,
                    labels=self.coords,
                )
            )
        return list(self.renderer().cards(boards))

    @staticmethod
    def _shown(state: np.ndarray, revealed) -> np.ndarray:
        shown = state.copy()
        for r, c in revealed:
            shown[r, c] = FACE_UP
        return shown

    def frame_format(self) -> dict:
        """As the release sends its boards (JPEG quality 85, optimized) in its look; PNG in cogsim's."""
        if self.release_look:
            from cogsim.benchmarks.rngbench.pairs.look import FRAME_FORMAT

            return dict(FRAME_FORMAT)
        return {"format": "png"}

    def frames_drawn_by(self):
        if self.release_look:
            return {"look": "release", "path": "cpu", "gl_renderer": None}
        if self.modality == "text":
            return None
        return super().frames_drawn_by()

    def _final_text(self) -> str:
        matched = sum(self.game.scores())
        return f"The game is over: {matched} of {self.pairs} pairs matched in {sum(self.responses)} responses."

    def shows_pictures(self) -> bool:
        return self.modality == "image"

    def _episode(self) -> dict:
        scores = self.game.scores()
        episode = {
            "game": "pairs",
            "rows": self.rows,
            "cols": self.cols,
            "pairs": self.pairs,
            "modality": self.modality,
            "theme": self.theme,
            "memory_map": self.memory_map,
            "cot": self.cot,
            "feedback": self.feedback,
            "budget": self.budget,
            "deal": self.deal,
            "coords": self.coords,
            "matched": sum(scores),
            "score": sum(scores) / self.pairs,
            "responses": sum(self.responses),
            "parse_failures": sum(self.parse_failures),
            "invalid": sum(self.invalid),
            "forfeits": sum(self.forfeits),
            "max_retries": self.max_retries,
            "optimal_responses": self.optimal_responses,
            **self.pictures_record(),
        }
        if self.num_players == 2:
            episode.update(
                scores=list(scores),
                winner=None if scores[0] == scores[1] else int(scores[1] > scores[0]),
                responses_by_player=list(self.responses),
                parse_failures_by_player=list(self.parse_failures),
                invalid_by_player=list(self.invalid),
                players=self.player_names,
            )
        return episode

    # -- scripted agents -------------------------------------------------------------------------
    def scripted_response(self, policy: str, rng: np.random.Generator) -> str:
        if policy in ("oracle", "optimal"):
            card = int(self.game.optimal(threads=1)[0])
        elif policy == "forgetful":
            known = agents.remembered_cards(self.flip_log, self.game.seen(), self.memory_map)
            card = agents.forgetful_flip(self.board, self.game.state(), self.game.pending(), known, rng)
        elif policy == "random":
            state = self.game.state().ravel()
            card = int(rng.choice(np.flatnonzero(state == game.FACE_DOWN)))
        else:
            raise ValueError(f"policy must be one of {', '.join(self.scripted_policies)}, got {policy!r}")
        return parser.format_flip(*divmod(card, self.cols), self.coords)


class PairsDuelEnv(PairsEnv):
    num_players = 2

    def __init__(self, env_id: str = "pairs/duel", **options):
        super().__init__(env_id, **options)


register("pairs/single", PairsEnv, description="RNG-Bench Matching Pairs, one player (Score%, Resp./Score, PF%, IA%)")
register(
    "pairs/duel",
    PairsDuelEnv,
    description="RNG-Bench Matching Pairs duel: two agents alternate on one board (Win%, W/T/L, Elo)",
)

DEMO_SUITES = [
    {
        "env_id": "pairs/single",
        "options": {"rows": 4, "cols": 4},
        "episodes": 4,
        "agents": ["oracle", "forgetful", "random"],
    },
    {
        "env_id": "pairs/single",
        "options": {"rows": 4, "cols": 4, "memory_map": True},
        "episodes": 4,
        "agents": ["forgetful"],
    },
    {
        "env_id": "pairs/single",
        "options": {"rows": 2, "cols": 4, "modality": "image", "theme": "poker"},
        "episodes": 1,
        "agents": ["oracle"],
    },
]
