"""guessgame: a minimal cogsim benchmark, the example of docs/adding-a-benchmark.md.

Guess a hidden integer; every wrong guess is answered "Higher." or "Lower.". The package holds
what a benchmark folder holds: the family record (``family``), the env with its scripted agents
(``env``), the answer parser (``parser``), the metric suite (``metrics``), a paper preset with its
reference rows (``paper``, ``published.json``) and its picture, the range still open (``look``). cogsim finds it
through the ``cogsim.families`` entry point that ``pyproject.toml`` declares, naming
``guessgame.family:FAMILY``; nothing here is imported before it is needed.
"""
