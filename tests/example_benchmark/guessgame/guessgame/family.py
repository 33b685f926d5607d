"""The family record cogsim loads through the ``cogsim.families`` entry point. It imports nothing but
the record's class: cogsim loads every family record when it is imported itself."""

from cogsim.families import Family

FAMILY = Family(
    name="guess",
    env_ids=("guess/number",),
    envs="guessgame.env",
    metrics="guessgame.metrics",
    paper="guessgame.paper",
    scenes="guessgame.look",
    scene_kinds=("guess_range",),
)
