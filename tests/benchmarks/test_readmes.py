"""Each benchmark folder's README stays true to its code: it names every env id of the benchmark's
families, every option those envs accept and every scripted agent they know, and its links lead to
files and headings that exist."""

import inspect
import re
from pathlib import Path

import pytest

import cogsim
from cogsim import families
from cogsim.envs import spec

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "python" / "cogsim" / "benchmarks"
NOT_OPTIONS = {"self", "env_id", "options", "generator_options", "task"}  # kidgym's task is its env id's


def accepted_options(env_id: str) -> set[str]:
    """The options the env takes: those its unknown-option error lists, and its constructor's own."""
    with pytest.raises(ValueError) as error:
        cogsim.make(env_id, no_such_option=1)
    message = str(error.value)
    names = set(re.findall(r"[a-z][a-z_]*", message.partition("allowed:")[2]))
    entry = spec(env_id).entry_point
    if isinstance(entry, type):
        names |= set(inspect.signature(entry.__init__).parameters)
    return names - NOT_OPTIONS


def readme(benchmark: str) -> str:
    return (BENCHMARKS / benchmark / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("family", families.BUILTIN, ids=lambda f: f.name)
def test_the_readme_names_every_env_id_option_and_scripted_agent(family):
    text = readme(family.benchmark_name)
    for env_id in family.env_ids:
        assert f"`{env_id}`" in text, env_id
        options = accepted_options(env_id)
        assert options, env_id
        missing = sorted(name for name in options if f"`{name}`" not in text)
        assert not missing, f"{env_id}: options not in the README: {missing}"
        env = cogsim.make(env_id)
        unnamed = [p for p in env.scripted_policies if f"`{p}`" not in text]
        assert not unnamed, f"{env_id}: scripted agents not in the README: {unnamed}"


@pytest.mark.parametrize("path", sorted(BENCHMARKS.rglob("README.md")), ids=lambda p: str(p.relative_to(BENCHMARKS)))
def test_readme_links_lead_to_files_and_headings(path):
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if target.startswith("https://"):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve()
        assert linked.is_file(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in anchors, target


def test_every_benchmark_folder_has_a_readme():
    folders = {f.benchmark_name for f in families.BUILTIN}
    assert folders == {p.parent.name for p in BENCHMARKS.glob("*/README.md")}
