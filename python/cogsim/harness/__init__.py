"""The model loop: run config, conversation history, the lockstep runner and its executors.

from cogsim.harness import RunConfig, Task, run
summary = run(RunConfig(tasks=[Task("wilt/lite", episodes=10)], agents=["oracle"]), "runs/x")
run(None, "runs/x", resume=True)            # continue a killed run where it stopped
"""

from cogsim.agents.history import HistoryPolicy
from cogsim.harness.config import RunConfig, Task, import_plugins, parse_option_values, resolve_suites
from cogsim.harness.executor import Executor, LocalExecutor
from cogsim.harness.lockstep import ReplayMismatch, run_slots
from cogsim.harness.runner import RunSummary, run
from cogsim.harness.slots import PendingSlots, Plan, Slot, plan, seat_groups

__all__ = [
    "RunConfig",
    "Task",
    "HistoryPolicy",
    "Executor",
    "LocalExecutor",
    "RunSummary",
    "PendingSlots",
    "Plan",
    "Slot",
    "ReplayMismatch",
    "plan",
    "run",
    "run_slots",
    "seat_groups",
    "import_plugins",
    "parse_option_values",
    "resolve_suites",
]
