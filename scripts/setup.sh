#!/usr/bin/env bash
# Sets up a fresh machine for cogsim: system libraries for headless rendering (when run as root
# on Debian/Ubuntu), a virtual environment in .venv, and the package with its test extras. Run again
# on an unchanged tree it rebuilds nothing (the sources' hash is kept in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

# Mesa: headless GL; FriBiDi: Pillow lays text out with Raqm only where it is (the release pictures' labels);
# Chromium: the browser the tests of `cogsim play` and `cogsim view` drive (headless, through Playwright)
debian_packages=(libegl1 libgl1 libgles2 libgl1-mesa-dri libegl-mesa0 libglx-mesa0 libfribidi0 chromium)
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  missing=()
  for pkg in "${debian_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# What the installed package was built from: every file pip would build it from.
sources_hash() {
  find pyproject.toml CMakeLists.txt README.md cpp bindings python -type f ! -name '*.pyc' -print0 \
    | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
stamp=.venv/cogsim-sources.sha256
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(sources_hash)" ] && .venv/bin/python -c 'import cogsim' 2>/dev/null; then
  echo "setup: cogsim $(.venv/bin/python -c 'import cogsim; print(cogsim.__version__)') in .venv is up to date"
  exit 0
fi

hash="$(sources_hash)"  # of the tree pip builds from: a file changed during the install makes the next run rebuild
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
echo "setup: installing cogsim and its test extras into .venv (the first time downloads the dependencies"
echo "       and compiles the C++ core: a few minutes on 2 cores; pip -q prints nothing meanwhile)"
.venv/bin/python -m pip install -q ".[test]"
echo "$hash" > "$stamp"
echo "setup: cogsim $(.venv/bin/python -c 'import cogsim; print(cogsim.__version__)') installed in .venv"
echo "setup: run it as .venv/bin/cogsim, or 'source .venv/bin/activate' first to type cogsim"
