"""cogsim inside inspect_ai: tasks for every env id, the scripted agents as inspect models, and
parity: the same seeds give, episode for episode, the rewards `cogsim run` gives."""

import inspect_ai
import pytest
from inspect_ai.log import read_eval_log

import cogsim
from cogsim.families import declared_env_ids
from cogsim.harness import RunConfig, Task, run
from cogsim.integrations.episode import Episode, EpisodeSpec, metric_values
from cogsim.integrations.inspect_tasks import task_name
from cogsim.metrics import Table, wilson
from cogsim.store import open_store

EPISODES = 2
DUEL = {"seat": 0, "opponent": "oracle"}  # cogsim run with one agent in a duel: it takes both seats


def cogsim_rewards(tmp_path, env_ids, agent, episodes=EPISODES, seed=0) -> dict:
    out = tmp_path / f"run-{agent}"
    config = RunConfig(tasks=[Task(e, episodes) for e in env_ids], agents=[agent], seed=seed, workers=1)
    run(config, out)
    with open_store(out) as store:
        return {(e["env_id"], e["seed"]): e["total_reward"] for e in store.episodes(("done", "truncated"))}


def inspect_logs(tmp_path, env_ids, model, **task_args):
    """``inspect eval cogsim/<env> --model MODEL``, in this process: tasks named as on the command line."""
    names = [f"cogsim/{task_name(e)}" for e in env_ids]
    logs = inspect_ai.eval(
        names, model=model, task_args=task_args, log_dir=str(tmp_path / "logs"), display="none", max_tasks=1
    )
    assert [log.status for log in logs] == ["success"] * len(names), [log.error for log in logs]
    return [read_eval_log(log.location, resolve_attachments=True) for log in logs]


def inspect_rewards(logs) -> dict:
    rewards = {}
    for log in logs:
        for sample in log.samples:
            env_id, seed = sample.metadata["env_id"], sample.metadata["seed"]
            assert sample.error is None, sample.error
            rewards[(env_id, seed)] = sample.scores["episode_reward"].value
    return rewards


def test_every_env_id_is_an_inspect_task_with_the_oracle_rewards_of_cogsim_run(tmp_path):
    env_ids = [e for e in declared_env_ids() if cogsim.make(e).num_players == 1]
    logs = inspect_logs(tmp_path, env_ids, "cogsim/oracle", episodes=EPISODES)
    got = inspect_rewards(logs)
    assert got == cogsim_rewards(tmp_path, env_ids, "oracle")
    assert len(got) == EPISODES * len(env_ids)
    with_family_metrics = 0
    for log in logs:  # the family metrics ride along, as cogsim's metric code computes them
        shown = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
        episodes = [e for s in log.samples for e in s.scores["episode_reward"].metadata["episodes"]]
        expected = metric_values(episodes)
        assert shown == {"mean": pytest.approx(shown["mean"]), "stderr": pytest.approx(shown["stderr"]), **expected}
        with_family_metrics += bool(expected)
    assert with_family_metrics >= len(logs) - 2  # the oracle never fails, so cube/recovery has nothing to show


def test_duels_as_inspect_tasks(tmp_path):
    duels = [e for e in declared_env_ids() if cogsim.make(e).num_players > 1]
    assert duels
    got = inspect_rewards(inspect_logs(tmp_path, duels, "cogsim/oracle", episodes=EPISODES, **DUEL))
    assert got == cogsim_rewards(tmp_path, duels, "oracle")
    # by default the model plays each seed in both seats, against cogsim's reference opponent
    log = inspect_logs(tmp_path, duels[:1], "cogsim/random", episodes=2)[0]
    assert sorted(s.id for s in log.samples) == ["0-seat0", "0-seat1", "1-seat0", "1-seat1"]
    assert all(s.scores["episode_reward"].metadata["episodes"][0]["agents"] for s in log.samples)
    seats = {s.id: s.scores["episode_reward"].metadata["episodes"][0]["agents"] for s in log.samples}
    assert seats["0-seat0"] == ["random", "forgetful"] and seats["0-seat1"] == ["forgetful", "random"]


@pytest.mark.parametrize("agent", ["random", "noisy-oracle:0.3"])
def test_random_agents_give_the_rewards_of_cogsim_run(tmp_path, agent):
    env_ids = ["wilt/lite", "kidgym/counting", "pairs/single", "cube/move-effect"]
    got = inspect_rewards(inspect_logs(tmp_path, env_ids, f"cogsim/{agent}", episodes=3, seed=5))
    assert got == cogsim_rewards(tmp_path, env_ids, agent, episodes=3, seed=5)


def test_task_arguments_reach_the_env_and_the_samples(tmp_path):
    log = inspect_logs(
        tmp_path, ["pairs/single"], "cogsim/oracle", episodes=3, seed=7, rows=2, cols=4, history="last:3"
    )[0]
    assert [s.id for s in log.samples] == [7, 8, 9]
    record = log.samples[0].scores["episode_reward"].metadata["episodes"][0]
    assert record["options"]["rows"] == 2 and record["history"] == "last:3" and record["seed"] == 7
    assert log.eval.task_args["rows"] == 2


def test_images_go_to_the_model_as_image_content(tmp_path):
    log = inspect_logs(tmp_path, ["kidgym/counting"], "cogsim/oracle", episodes=1)[0]
    sample = log.samples[0]
    user = next(m for m in sample.messages if m.role == "user")
    assert [c.type for c in user.content] == ["image", "text"]
    assert user.content[0].image.startswith("data:image/png;base64,")


def test_the_env_decoding_defaults_are_the_task_config_and_user_flags_win(tmp_path):
    log = inspect_logs(tmp_path, ["cube/verification"], "cogsim/oracle", episodes=1)[0]
    assert log.plan.config.max_tokens == 16384 and log.plan.config.temperature == 0.0
    logs = inspect_ai.eval(
        "cogsim/cube_verification",
        model="cogsim/oracle",
        task_args={"episodes": 1},
        max_tokens=64,
        log_dir=str(tmp_path / "flags"),
        display="none",
    )
    assert logs[0].plan.config.max_tokens == 64


@pytest.mark.parametrize(
    ("task_args", "words"),
    [
        ({"level": 9}, ["level"]),
        ({"colour": "red"}, ["colour", "task's own arguments", "episodes"]),
        ({"history": "sometimes"}, ["history"]),
        ({"episodes": -1}, ["episodes"]),
        ({"seat": 1}, ["one player"]),
    ],
)
def test_bad_task_arguments_are_clear_errors(task_args, words):
    from cogsim.integrations.inspect_tasks import episode_task

    with pytest.raises(ValueError) as error:
        episode_task("kidgym/maze", **task_args)
    assert all(w in str(error.value) for w in words), str(error.value)


def test_unknown_options_name_the_allowed_ones_for_every_family():
    from cogsim.integrations.inspect_tasks import episode_task

    for env_id in ("wilt/lite", "cube/closed-loop", "kidgym/maze", "pairs/duel", "maze3d/nav"):
        with pytest.raises(ValueError, match="no_such_option") as error:
            episode_task(env_id, no_such_option=1)
        assert "allowed" in str(error.value) or "options are" in str(error.value), str(error.value)


def test_a_duel_opponent_must_be_known():
    from cogsim.integrations.inspect_tasks import episode_task

    with pytest.raises(ValueError, match="opponent"):
        episode_task("pairs/duel", opponent="elimination")
    assert episode_task("pairs/duel", opponent="random", seat=1).dataset[0].id == "0-seat1"


def test_scripted_models_refuse_other_tasks_and_unknown_policies(tmp_path):
    from inspect_ai import Task as InspectTask
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate

    logs = inspect_ai.eval(
        InspectTask(dataset=[Sample(input="hi")], solver=generate()),
        model="cogsim/oracle",
        log_dir=str(tmp_path / "other"),
        display="none",
    )
    assert logs[0].status == "error" and "answers only the turns of cogsim" in logs[0].error.message
    logs = inspect_ai.eval(
        "cogsim/kidgym_maze",
        model="cogsim/elimination",
        task_args={"episodes": 1},
        log_dir=str(tmp_path / "policy"),
        display="none",
    )
    assert logs[0].status == "error" and "has no scripted policy" in logs[0].error.message
    with pytest.raises(ValueError, match="openai/"):
        inspect_ai.model.get_model("cogsim/openai:gpt-4o")


def test_backend_faults_are_sample_errors_never_answers(tmp_path):
    from inspect_ai.model import ModelOutput, ModelUsage

    def overflow(input, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm", "context length exceeded", stop_reason="model_length")
        output.usage = ModelUsage(input_tokens=10, output_tokens=0, total_tokens=10)
        return output

    logs = inspect_ai.eval(
        "cogsim/wilt_lite",
        model="mockllm/model",
        model_args={"custom_outputs": overflow},
        task_args={"episodes": 2},
        log_dir=str(tmp_path / "fault"),
        display="none",
        fail_on_error=False,
    )
    log = read_eval_log(logs[0].location)
    assert all(s.error is not None and "not the model's answer" in s.error.message for s in log.samples)
    assert all(not s.scores for s in log.samples)


def test_metric_values_flatten_cogsim_tables():
    table = Table("T", ["agent", "depth", "acc", "n/a", "ratio"])
    table.rows = [["m", 1, wilson(3, 4), "-", 0.5], ["m", 2, "50.0 [10.0, 90.0]", "n/a", float("nan")]]
    from cogsim.integrations.episode import table_values

    values = table_values(table)
    assert values["T: acc [depth=1]"] == 0.75 and values["T: acc [depth=2] 95% high"] == 90.0
    assert values["T: ratio [depth=1]"] == 0.5 and not any(
        "n/a" in k or "[depth=2]" in k and "ratio" in k for k in values
    )


def test_episode_matches_play_scripted_and_records_for_the_metrics():
    episode = Episode(EpisodeSpec("wilt/lite"), seed=3, seats=("oracle",))
    while not episode.finished:
        episode.step(episode.scripted_answer("oracle"))
    record = episode.record()
    assert record["status"] == "done" and record["correct"] and record["agent"] == "oracle"
    assert metric_values([record])["WILT: results by agent: accuracy %"] == 100.0


def test_import_cogsim_imports_no_integration():
    import subprocess
    import sys

    code = (
        "import sys, cogsim; cogsim.make('wilt/lite'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('inspect_ai', 'verifiers', 'openai', 'datasets') "
        "or m.startswith('cogsim.integrations')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_epochs_give_the_family_metrics_every_epoch(tmp_path):
    logs = inspect_ai.eval(
        "cogsim/wilt_lite",
        model="cogsim/noisy-oracle:0.5",
        task_args={"episodes": 2},
        epochs=3,
        log_dir=str(tmp_path / "epochs"),
        display="none",
    )
    log = read_eval_log(logs[0].location)
    assert log.status == "success" and len(log.samples) == 6
    (reduction,) = log.reductions
    assert [len(s.metadata["episodes"]) for s in reduction.samples] == [3, 3]
    metrics = {m.name: m.value for m in log.results.scores[0].metrics.values()}
    assert "WILT: results by agent: accuracy %" in metrics
