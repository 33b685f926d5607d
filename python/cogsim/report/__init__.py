"""Reports of a run directory: Markdown and HTML with the same content.

    write_report("runs/x")   # -> runs/x/report.md, runs/x/report.html, plots under runs/x/plots/

Per suite: the tables of ``cogsim.metrics.summarize`` (95% intervals) and the plots of
``cogsim.metrics.plot``. For every run: episodes and turns per env and agent, parse failures,
backend errors, throughput, and examples of unparsable answers.
"""

from cogsim.report.document import Document, format_cell
from cogsim.report.run_report import build_report, write_report

__all__ = ["Document", "format_cell", "build_report", "write_report"]
