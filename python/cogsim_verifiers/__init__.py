"""cogsim's verifiers taskset, under the module name the verifiers CLI imports: ``vf-eval
cogsim-verifiers --env.taskset.env-id wilt/lite ...`` (``cogsim.integrations.verifiers``; needs
``pip install 'cogsim[verifiers]'``). It exports exactly one Taskset, Env and Harness, as verifiers
expects of a taskset module."""

from cogsim.integrations.verifiers import CogsimEnv, CogsimHarness, CogsimTaskset

__all__ = ["CogsimTaskset", "CogsimEnv", "CogsimHarness"]
