#!/usr/bin/env bash
# The documentation site: installs the docs extra's packages into .venv (without rebuilding cogsim,
# which the pages' generators import: run scripts/setup.sh first), then `mkdocs build --strict` into
# site/ (a broken link, a missing page, heading or API name fails it). `bash scripts/docs.sh serve`
# serves it while you edit.
set -euo pipefail
export NO_MKDOCS_2_WARNING=1  # the theme's notice about its successor, on every build
cd "$(dirname "$0")/.."
.venv/bin/python - <<'PY' | .venv/bin/python -m pip install -q -r /dev/stdin
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["docs"]))
PY
if [ "${1:-}" = "serve" ]; then
  exec .venv/bin/mkdocs serve
fi
.venv/bin/mkdocs build --strict --quiet
echo "docs: the site is in site/ (open site/index.html)"
