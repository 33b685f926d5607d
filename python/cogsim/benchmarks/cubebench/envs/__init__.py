"""Cube Bench: the seven tests of the paper and the release's invariance sweep as registered envs
(``cube/<test>``), one module per test over the shared base (``base``).

Every episode is generated from (depth, seed) by ``cogsim.benchmarks.cubebench.items`` (or read from an
imported seed list); prompts live in ``cogsim.benchmarks.cubebench.prompts`` and answers go through the
parsers of ``cogsim.benchmarks.cubebench.parser`` (the release's extraction by default, ``parser="strict"``
for cogsim's one-line formats), for scripted agents and models alike. ``info["episode"]``
carries the per-episode outcomes that ``cogsim.benchmarks.cubebench.metrics`` turns into the paper's tables.

Options common to all tests: ``depth`` (scramble depth, 1..20; keep <= 7 for fast oracle labels),
``look`` (the net image: "release", the release's own picture of the state pixel for pixel, the
default | "cogsim", cogsim's net), ``sticker`` (px per sticker of cogsim's net; look="cogsim" only),
``seed_list`` (path or dict from ``seed_lists.build_seed_list``: episode ``seed`` then means the list's
index), ``release`` (which line of the authors' harness "release" means: "731aff82", the newest and
the default, or "1ca7d58", the older ``main``; ``cogsim.benchmarks.cubebench.release_lines``) and the
protocol options, each "release" by default (that line's reading, docs/fidelity.md): ``parser``
("release" | "strict"), ``colours`` ("release" | "cogsim"), ``state_format`` ("release" | "cogsim"),
``scrambles`` ("release" | "cogsim"), ``layout`` ("release": the newest line's seeded option sets and
verification cells where reproducible | "cogsim"); ``env.protocol`` names the variant (``look``
included where images are shown) and every episode records it, and
``env.metadata["cogsim.decoding"]`` holds the line's max_tokens, temperature and top_p. Per test:
``modality`` ("image+text" | "image" | "text" | "image+text-no-authority"), ``negatives``
(verification), ``abstention`` / ``abstain_policy`` / ``credit`` (closed-loop), ``regime`` /
``reveal_choice`` (reflection), ``start`` (recovery). Prompts and protocols follow the paper's
released harness (github.com/dana-23/cube-bench); where it is ambiguous the alternative reading is a
named option.
"""

from cogsim.benchmarks.cubebench import prompts
from cogsim.benchmarks.cubebench.envs.base import ABSTAIN_LABEL, PROTOCOL_CHOICES, RELEASE_DECODING, CubeBenchEnv
from cogsim.benchmarks.cubebench.envs.closed_loop import ABSTAIN_POLICIES, CREDITS, ClosedLoopEnv
from cogsim.benchmarks.cubebench.envs.invariance import InvarianceEnv
from cogsim.benchmarks.cubebench.envs.move_effect import MoveEffectEnv
from cogsim.benchmarks.cubebench.envs.optimal_move import OptimalMoveEnv
from cogsim.benchmarks.cubebench.envs.reconstruction import ReconstructionEnv
from cogsim.benchmarks.cubebench.envs.recovery import RECOVERY_STARTS, RecoveryEnv
from cogsim.benchmarks.cubebench.envs.reflection import REGIMES, ReflectionEnv
from cogsim.benchmarks.cubebench.envs.verification import NEGATIVE_KINDS, VerificationEnv
from cogsim.envs import register

__all__ = [
    "ABSTAIN_LABEL",
    "ABSTAIN_POLICIES",
    "CREDITS",
    "ClosedLoopEnv",
    "CubeBenchEnv",
    "DEMO_SUITES",
    "InvarianceEnv",
    "MoveEffectEnv",
    "NEGATIVE_KINDS",
    "OptimalMoveEnv",
    "PAPER_DEPTHS",
    "PAPER_SUITES",
    "PROTOCOL_CHOICES",
    "RECOVERY_STARTS",
    "REGIMES",
    "RELEASE_DECODING",
    "ReconstructionEnv",
    "RecoveryEnv",
    "ReflectionEnv",
    "VerificationEnv",
]


_DESCRIPTIONS = {
    ReconstructionEnv: "Cube Bench 1: read the Front face off a cube-net image (3x3 colour grid)",
    VerificationEnv: "Cube Bench 2: does a textual Front-face grid match the image? (Yes/No)",
    OptimalMoveEnv: "Cube Bench 3: pick the optimal next move among four (image+text, image, text)",
    ReflectionEnv: "Cube Bench 4: draft answer, one reflection pass, re-answer (guided-redacted/-unredacted)",
    ClosedLoopEnv: "Cube Bench 5: closed-loop solving, one A-D move per step (optional IDK abstention)",
    MoveEffectEnv: "Cube Bench 6: label four candidate moves DECREASE / NO_CHANGE / INCREASE of distance",
    RecoveryEnv: "Cube Bench 7: recover from the first failure under accept-progress control",
    InvarianceEnv: "Cube Bench (release): invariance sweep, one item beside clean/occluded/darkened/recoloured images",
}

for _env_class, _description in _DESCRIPTIONS.items():
    register(f"cube/{_env_class.test}", _env_class, description=_description)

# The paper's grid: depths 1-3 (recovery 1-4; optimal move and reflection on depth-1 states, as the
# paper's prediction prompt states "exactly 1 move from solved"), every modality of the optimal-move
# test, both reflection regimes, closed loop with and without abstention. For full runs with models.
PAPER_DEPTHS = (1, 2, 3)

PAPER_SUITES = (
    [{"env_id": "cube/reconstruction", "options": {"depth": d}, "episodes": 100} for d in PAPER_DEPTHS]
    + [{"env_id": "cube/verification", "options": {"depth": d}, "episodes": 100} for d in PAPER_DEPTHS]
    + [
        {"env_id": "cube/optimal-move", "options": {"depth": 1, "modality": m}, "episodes": 100}
        for m in prompts.MODALITIES
    ]
    + [{"env_id": "cube/reflection", "options": {"depth": 1, "regime": r}, "episodes": 100} for r in REGIMES]
    + [
        {"env_id": "cube/closed-loop", "options": {"depth": d, **a}, "episodes": 100}
        for d in PAPER_DEPTHS
        for a in (
            {},
            {"abstention": True, "abstain_policy": "teacher_on_abstain"},
            {"abstention": True, "abstain_policy": "skip_item"},
        )
    ]
    + [{"env_id": "cube/move-effect", "options": {"depth": d}, "episodes": 99} for d in PAPER_DEPTHS]
    + [
        {"env_id": "cube/recovery", "options": {"depth": d, "start": st}, "episodes": 100}
        for d in (1, 2, 3, 4)
        for st in RECOVERY_STARTS
    ]
)

# What ``cogsim demo`` runs for this family: every test, small depths, a handful of episodes.
DEMO_SUITES = [
    {"env_id": "cube/reconstruction", "options": {"depth": 2}, "episodes": 8, "agents": ["oracle", "random"]},
    {"env_id": "cube/verification", "options": {"depth": 2}, "episodes": 8, "agents": ["oracle", "random"]},
    {"env_id": "cube/optimal-move", "options": {"depth": 1}, "episodes": 8, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/reflection",
        "options": {"depth": 1, "regime": "guided-unredacted"},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/closed-loop", "options": {"depth": 3}, "episodes": 8, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/closed-loop",
        "options": {"depth": 3, "abstention": True},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/move-effect", "options": {"depth": 2}, "episodes": 9, "agents": ["oracle", "random"]},
    {
        "env_id": "cube/recovery",
        "options": {"depth": 2, "start": "injected"},
        "episodes": 8,
        "agents": ["oracle", "random"],
    },
    {"env_id": "cube/invariance", "options": {"depth": 3}, "episodes": 8, "agents": ["oracle", "random"]},
]
