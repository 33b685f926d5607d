"""cogsim inside other evaluation and training tools: an adapter layer above the envs, metrics and
the model loop, which nothing in cogsim imports.

    cogsim.integrations.inspect_tasks    inspect_ai tasks for every env id (``inspect eval cogsim/wilt_lite``)
    cogsim.integrations.inspect_models   the scripted agents as inspect models (``--model cogsim/oracle``)
    cogsim.integrations.inspect_log      a cogsim run directory written as an inspect log (``cogsim export``)
    cogsim.integrations.verifiers        ``load_environment(env_id, **options)``: a verifiers MultiTurnEnv

Each needs its extra (``pip install 'cogsim[inspect]'``, ``'cogsim[verifiers]'``); ``import cogsim``
imports none of them. ``episode`` holds what they share: one cogsim episode played turn by turn
from outside the runner, with the runner's history, seeds and scripted agents.
"""
