"""What every Cube Bench test shares: the env base class (options, items, images, the state text,
parsing by the release's extraction or cogsim's strict formats) and the answer helpers."""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from cogsim.benchmarks.cubebench import items as items_mod
from cogsim.benchmarks.cubebench import parser as parsers
from cogsim.benchmarks.cubebench import prompts, release_lines, seed_lists, views
from cogsim.benchmarks.cubebench.items import LABELS
from cogsim.envs.base import QuickReply, ResetNeeded, TextEnv, option_replies
from cogsim.envs.options import choice, integer, known, shown

ABSTAIN_LABEL = "E"  # the option label of "I don't know" where a test allows abstaining
PROTOCOL_CHOICES = ("release", "cogsim")
DEFAULT_STICKER = 32  # px per sticker of cogsim's net

# The newest release line's decoding per test (its generation contracts): max tokens, temperature, top_p.
RELEASE_DECODING = release_lines.DECODING[release_lines.NEWEST]


def check_sticker(value: object, look: str) -> Optional[int]:
    """The sticker size of cogsim's net (look="cogsim"); None for the release's net, which has its own size."""
    if look == "release":
        if value is not None:
            raise ValueError(
                f"sticker sizes cogsim's net (look='cogsim'); the release's net (look='release') is drawn at its own "
                f"size, got sticker={shown(value)}"
            )
        return None
    return integer({} if value is None else {"sticker": value}, "sticker", DEFAULT_STICKER, 8, 256)


class CubeBenchEnv(TextEnv):
    """Shared machinery: options, item lookup, state observations, episode bookkeeping."""

    suite = "cube"
    default_history = "current"
    batches_frames = True
    test: ClassVar[str] = ""
    modalities: ClassVar[tuple[str, ...]] = prompts.MODALITIES
    default_modality: ClassVar[str] = "image+text"
    test_options: ClassVar[tuple[str, ...]] = ()  # options a subclass reads itself
    file_options: ClassVar[dict[str, str]] = {"seed_list": "json"}

    def __init__(
        self,
        env_id: str = "",
        depth: int = 1,
        modality: Optional[str] = None,
        look: str = "release",
        sticker: Optional[int] = None,
        seed_list=None,
        release: str = release_lines.NEWEST,
        parser: str = "release",
        colours: str = "release",
        state_format: str = "release",
        scrambles: str = "release",
        layout: str = "release",
        **options: Any,
    ):
        base_options = (
            "depth",
            "modality",
            "look",
            "sticker",
            "seed_list",
            "release",
            "parser",
            "colours",
            "state_format",
            "scrambles",
            "layout",
        )
        known(options, env_id or self.test, (*base_options, *self.test_options))
        modality = self.default_modality if modality is None else modality
        super().__init__(
            env_id,
            depth=depth,
            modality=modality,
            look=look,
            sticker=sticker,
            release=release,
            parser=parser,
            colours=colours,
            state_format=state_format,
            scrambles=scrambles,
            layout=layout,
            **options,
        )
        given = {
            "depth": depth,
            "modality": modality,
            "look": look,
            "release": release,
            "parser": parser,
            "colours": colours,
            "state_format": state_format,
            "scrambles": scrambles,
            "layout": layout,
        }
        self.release = str(choice(given, "release", release_lines.NEWEST, release_lines.LINES))
        self.parser = choice(given, "parser", "release", parsers.PARSERS)
        self.colours = choice(given, "colours", "release", views.COLOUR_SCHEMES)
        self.state_format = choice(given, "state_format", "release", views.STATE_FORMATS)
        self.scrambles = choice(given, "scrambles", "release", PROTOCOL_CHOICES)
        self.layout = choice(given, "layout", "release", PROTOCOL_CHOICES)
        self.metadata = {**type(self).metadata, "cogsim.decoding": self._decoding()}
        self.depth = integer(given, "depth", 1, 1, items_mod.MAX_DEPTH)
        self.modality = choice(given, "modality", self.default_modality, self.modalities)
        self.look = choice(given, "look", "release", views.LOOKS)
        self.sticker = check_sticker(sticker, self.look)
        self._release_frames_drawn = False
        self.seed_list = None if seed_list is None else seed_lists.load_seed_list(seed_list)
        self.item: dict = {}
        self._running = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        self._running = False
        result = super().reset(seed=seed, options=options)
        self._running = True
        self._shown_options = tuple(result[0]["options"])
        return result

    def step(self, action: str):
        if not self._running:
            raise ResetNeeded("no episode is running: call reset() first (and again after the last step)")
        result = super().step(action)
        self._running = not (result[2] or result[3])
        self._shown_options = tuple(result[0]["options"]) if self._running else ()
        return result

    def quick_replies(self) -> tuple[QuickReply, ...]:
        """The shown options by their letters, each answered in the tagged form ``<ANSWER> X </ANSWER>``."""
        return option_replies(getattr(self, "_shown_options", ()), tagged_answer)

    # -- episode setup -------------------------------------------------------------------------
    @property
    def newest(self) -> bool:
        return self.release == release_lines.NEWEST

    @property
    def sampler(self) -> str:
        """The item sampler: the line's release sampler, or cogsim's."""
        if self.scrambles == "cogsim":
            return "cogsim"
        return "release" if self.newest else "release-1ca7d58"

    @property
    def item_layout(self) -> str:
        """The newest line's seeded layout where asked for; the older line's choices are not reproducible."""
        return "release" if self.layout == "release" and self.newest else "cogsim"

    def _decoding(self) -> dict:
        return dict(release_lines.DECODING[self.release][self.test])

    def _load_item(self, seed: int) -> dict:
        if self.seed_list is not None:
            return seed_lists.seed_list_item(self.seed_list, self.test, self.depth, seed)
        return items_mod.make_item(self.test, self.depth, seed, scrambles=self.sampler, layout=self.item_layout)

    @property
    def protocol(self) -> str:
        """ "release" when every protocol option follows the newest release line; "release=1ca7d58" and
        the options that differ otherwise."""
        changed = [] if self.newest else [f"release={self.release}"]
        changed += [f"{name}={value}" for name, value in self._protocol_options().items() if value != "release"]
        return ",".join(changed) or "release"

    def _protocol_options(self) -> dict:
        return {
            "parser": self.parser,
            "colours": self.colours,
            "state_format": self.state_format,
            "scrambles": self.scrambles,
            "layout": self.layout,
            **({"look": self.look} if self.modality != "text" else {}),  # the net image, where one is shown
        }

    def _images(self, facelets: str) -> tuple:
        return () if self.modality == "text" else (self._net_image(facelets),)

    def _net_image(self, facelets: str, variant: str = "clean"):
        """The net image of a state in this env's look and colours (``variant``: the invariance sweep's)."""
        shown = views.recolour(facelets, self.colours)
        if self.look == "release":
            self._release_frames_drawn = True
            return views.release_net_image(shown, variant)
        return views.variant_image(shown, variant, self.sticker, self.renderer())

    def frames_drawn_by(self) -> Optional[dict]:
        """What drew the env's frames and in which look: the release's net is drawn on the CPU by the core.
        Both looks are sent as PNG, as the release sends its net (the default ``frame_format()``)."""
        if self.look == "release":
            return {"look": "release", "path": "cpu", "gl_renderer": None} if self._release_frames_drawn else None
        return super().frames_drawn_by()

    def _state_text(self, facelets: str) -> str:
        shown = views.recolour(facelets, self.colours)
        return views.release_net_text(shown) if self.state_format == "release" else views.state_text(shown)

    def _state_block(self, facelets: str) -> str:
        return prompts.state_block(self.modality, self._state_text(facelets))

    def _grid(self, rows) -> list:
        return views.recolour_grid(list(rows), self.colours)

    def _episode(self, **outcomes: Any) -> dict:
        base = {
            "test": self.test,
            "depth": self.depth,
            "modality": self.modality,
            "index": self.item["index"],
            "prompt_version": self.item["prompt_version"],
            "protocol": self.protocol,
            **self.pictures_record(),
        }
        return {**base, **outcomes}

    def shows_pictures(self) -> bool:
        return self.modality != "text"

    # -- answer extraction: the release's (default) or cogsim's strict one-line formats ---------
    def _parse_choice(
        self, action: str, allow_idk: bool = False, last_line: bool = False, options: Optional[list] = None
    ) -> parsers.Parsed:
        if self.parser == "release":
            return parsers.release_choice(action, LABELS, allow_idk=allow_idk, options=options, line=self.release)
        return parsers.parse_choice(
            action, LABELS, allow_idk=allow_idk, idk_label=ABSTAIN_LABEL if allow_idk else None, last_line=last_line
        )

    def _parse_yes_no(self, action: str) -> parsers.Parsed:
        return parsers.release_yes_no(action) if self.parser == "release" else parsers.parse_yes_no(action)

    def _parse_effects(self, action: str) -> parsers.Parsed:
        return (
            parsers.release_effects(action, LABELS)
            if self.parser == "release"
            else parsers.parse_effects(action, LABELS)
        )

    def _parse_grid(self, action: str) -> parsers.Parsed:
        return parsers.release_grid(action) if self.parser == "release" else parsers.parse_grid(action)

    def _check_policy(self, policy: str) -> None:
        choice({"policy": policy}, "policy", policy, self.scripted_policies)


def answer_line(token: str) -> str:
    return f"ANSWER: {token}"


def tagged_answer(token: str) -> str:
    return f"<ANSWER> {token} </ANSWER>"


def choice_info(parsed: parsers.Parsed) -> dict:
    return {"parse": parsed.status, "parsed": parsed.value}
