"""cogsim's scripted agents as inspect models: ``--model cogsim/oracle``, ``cogsim/random``,
``cogsim/noisy-oracle`` (``cogsim/noisy-oracle:0.3``, default 0.2) and each suite's scripted
policies (``cogsim/elimination``, ``cogsim/forgetful``, ...).

A scripted agent answers from the env's hidden state, so it answers only the turns of cogsim's
own tasks (``inspect eval cogsim/<env>``): the task's solver names the episode whose turn it is in
``SCRIPTED_TURN`` before it calls the model, and the model answers for that episode's player to
move, from the random stream ``cogsim run`` gives the same seat and agent.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Optional

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from cogsim.agents.base import noise_probability, parse_agent_spec
from cogsim.integrations.episode import Episode

PROVIDER = "cogsim"
DEFAULT_NOISE = 0.2  # cogsim/noisy-oracle without a probability

# The episode whose turn the current generate() call answers (set by the cogsim task's solver).
SCRIPTED_TURN: ContextVar[Optional[Episode]] = ContextVar("cogsim_scripted_turn", default=None)


def scripted_spec(model_name: str, noise: Optional[float] = None) -> str:
    """The cogsim agent spec of a ``cogsim/NAME`` model; ValueError for anything but a scripted agent."""
    if model_name == "noisy-oracle":
        model_name = f"noisy-oracle:{DEFAULT_NOISE if noise is None else noise}"
    elif noise is not None:
        raise ValueError(f"model {PROVIDER}/{model_name}: only noisy-oracle takes the model argument p")
    kind, _ = parse_agent_spec(model_name)
    if kind != "scripted":
        raise ValueError(
            f"model {PROVIDER}/{model_name}: cogsim's inspect models are its scripted agents "
            f"({PROVIDER}/oracle, {PROVIDER}/random, {PROVIDER}/noisy-oracle:P, a suite's policy); "
            f"for a served model use inspect's own provider, e.g. openai/{model_name.partition(':')[2] or 'MODEL'}"
        )
    if model_name.startswith("noisy-oracle"):
        noise_probability(model_name)
    return model_name


class ScriptedModel(ModelAPI):
    """A cogsim scripted agent behind inspect's model interface."""

    def __init__(
        self,
        model_name: str,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        config: Optional[GenerateConfig] = None,
        p: Optional[float] = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_args:
            raise ValueError(f"model {PROVIDER}/{model_name}: unknown model arguments {sorted(model_args)}; known: p")
        self.spec = scripted_spec(model_name, p)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        episode = SCRIPTED_TURN.get()
        if episode is None:
            raise RuntimeError(
                f"{PROVIDER}/{self.spec} answers only the turns of cogsim's tasks (inspect eval cogsim/<env id>): "
                "a scripted agent reads the env's hidden state, which other tasks do not have"
            )
        return ModelOutput.from_content(model=f"{PROVIDER}/{self.spec}", content=episode.scripted_answer(self.spec))

    def max_connections(self) -> int:
        return 64  # answers are computed here, nothing waits on a server


# registered under the package's name: --model cogsim/NAME (the class stays a class, for isinstance)
scripted_model = modelapi(name=PROVIDER)(ScriptedModel)
