"""The benchmarks, one folder each over the shared engines: ``kidgym``, ``cubebench``, ``wilt`` and
``rngbench`` (Matching Pairs in ``pairs/``, the 3D maze in ``maze/``). Each holds the benchmark's own
code (envs, game or item logic, prompts, parser, metrics, looks, paper preset and published rows,
scripted agents) and a README; ``docs/adding-a-benchmark.md`` shows how to add one."""

from cogsim.benchmarks import _moved

_moved.install()
