"""Reports: suite metric tables with intervals, plots, the generic run tables, and robustness."""

import loop_envs  # noqa: F401
from cogsim import envs, metrics
from cogsim.harness import RunConfig, Task, run
from cogsim.metrics import Estimate, Table, wilson
from cogsim.report import Document, format_cell, write_report
from cogsim.store import Store


def test_report_has_metric_tables_plots_and_run_tables(tmp_path):
    run(RunConfig([Task("looptest/count", 6), Task("looptest/choice", 3)], ["oracle", "random"]), tmp_path)
    markdown, page = write_report(tmp_path, save_metrics=True)
    report = markdown.read_text()
    # oracle: 6 of 6 successes, Wilson interval [0.61, 1.00]; targets 3 4 5 6 3 4 = 25 turns
    assert "| looptest/count | oracle | 6 | 1.00 [0.61, 1.00] | 0.000 [0.000, 0.000] |" in report
    assert "| `looptest/count` | oracle | 6 | 6 | 0 | 0 | 0 | 0 | 25 | 0.000 [0.000, 0.133] | 0 | n/a |" in report
    assert report.count("| n/a |") >= 4  # scripted agents use no tokens
    assert "**Throughput**" in report and "## Examples of failed turns" in report and "no idea" in report
    assert "![Turns per episode](<plots/looptest_turns.png>)" in report
    assert (tmp_path / "plots" / "looptest_turns.png").stat().st_size > 1000
    html = page.read_text()
    assert (
        "<table>" in html
        and "<span class='ci'>[0.61, 1.00]</span>" in html
        and 'src="plots/looptest_turns.png"' in html
    )
    with Store(tmp_path) as store:
        (saved,) = store.query("SELECT tables FROM metrics WHERE suite = 'looptest'")
    assert "looptest outcomes" in saved[0]


class Unmeasured(loop_envs.CountEnv):
    suite = "loopnometrics"


class Broken(loop_envs.CountEnv):
    suite = "loopbroken"


envs.register("loopnometrics/count", Unmeasured)
envs.register("loopbroken/count", Broken)
metrics.register("loopbroken", lambda episodes: [Table("x", ["a"], [[episodes[0]["no such field"]]])])


def test_broken_or_missing_metrics_do_not_hide_the_rest(tmp_path):
    run(
        RunConfig([Task("loopbroken/count", 2), Task("loopnometrics/count", 2), Task("looptest/count", 2)], ["oracle"]),
        tmp_path,
    )
    report = write_report(tmp_path)[0].read_text()
    assert "The metrics of suite `loopbroken` failed" in report and "KeyError: 'no such field'" in report
    assert "No metrics registered for suite `loopnometrics`" in report
    assert "| looptest/count | oracle | 2 | 1.00 [0.34, 1.00] |" in report


def test_cells_and_documents():
    assert format_cell(wilson(8, 10)) == "0.800 [0.490, 0.943]"
    assert format_cell(Estimate(12.345, 11.0, 13.5, 4)) == "12.35 [11.00, 13.50]"
    assert format_cell(Estimate(float("nan"), None, None, 0)) == "n/a"
    assert format_cell(1234567) == "1,234,567" and format_cell(0.5) == "0.500" and format_cell(True) == "True"
    document = Document("T")
    document.heading("H")
    document.paragraph("see `x<y`")
    document.table(Table("t", ["a|b", "c"], [["1|2", 3]], note="n"))
    document.image("cap", "p.png")
    assert "| a\\|b | c |" in document.markdown() and "![cap](<run/p.png>)" in document.markdown(path_prefix="run/")
    assert "### H" in document.markdown(heading_offset=1) and "<code>x&lt;y</code>" in document.html()
