#!/usr/bin/env bash
# The integration tests of the fast suite against other versions of the packages cogsim integrates
# with (inspect-ai, verifiers, gymnasium, ray), each in a fresh venv under build/versions/:
#   newest  the newest releases the index offers, cogsim's upper caps ignored, so that a new
#           release that breaks cogsim fails here, not for a user;
#   lowest  the lowest versions pyproject.toml's pins allow (the `>=` floors), so that the floors
#           stay true.
# cogsim itself is installed from a wheel of this checkout (the C++ build under build/ is reused).
# Usage: scripts/check_versions.sh [newest|lowest]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(inspect-ai verifiers gymnasium ray)
# What these packages touch: the adapters, the Gymnasium contract and registry, the Ray executor.
TESTS=(tests/test_integrations_inspect.py tests/test_integrations_inspect_log.py tests/test_integrations_verifiers.py
       tests/test_envs_contract.py tests/test_envs_registry.py tests/test_ray.py)
python="${COGSIM_PYTHON:-python3}"
export COGSIM_CACHE="${COGSIM_CACHE:-$PWD/build/test-cache}"

floors() {  # name==floor for each package: the `>=` bound of its requirement in pyproject.toml
  "$python" - "${PACKAGES[@]}" <<'EOF'
import re, sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
for name in sys.argv[1:]:
    found = {m.group(1) for r in requirements if (m := re.fullmatch(rf"{name}\s*>=\s*([^,;\s]+).*", r.strip()))}
    if len(found) != 1:
        sys.exit(f"check_versions: pyproject.toml gives {name} {len(found)} different floors: {sorted(found)}")
    print(f"{name}=={found.pop()}")
EOF
}

wheel_dir=build/versions/wheel
rm -rf "$wheel_dir"
# setup.sh builds cogsim in an isolated environment, so .venv has no build backend of its own: the
# wheel below is built without isolation (to reuse build/), with pyproject.toml's build requirements.
mapfile -t build_requires < <(.venv/bin/python -c \
  'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
.venv/bin/python -m pip install -q "${build_requires[@]}" cmake ninja
.venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w "$wheel_dir" .
wheel=("$wheel_dir"/cogsim-*.whl)

modes=("$@")
[ "${#modes[@]}" -gt 0 ] || modes=(newest lowest)
status=0
for mode in "${modes[@]}"; do
  venv="build/versions/$mode"
  case "$mode" in
    newest) pins=("${PACKAGES[@]}") ;;
    lowest) mapfile -t pins < <(floors) ;;
    *) echo "check_versions: unknown mode $mode (newest, lowest)" >&2; exit 2 ;;
  esac
  rm -rf "$venv" && "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  # The test extra's tools without its integration pins, then the versions under test and what they need.
  "$venv/bin/python" -m pip install -q "${wheel[0]}" pytest pytest-timeout hypothesis "${pins[@]}"
  "$venv/bin/python" -m pip check
  echo "check_versions ($mode): $("$venv/bin/python" -m pip list 2>/dev/null | grep -iE '^(inspect.ai|verifiers|gymnasium|ray|openai) ' | tr -s ' ' | paste -sd, -)"
  # Run from a copy of the tests so the checkout's python/ cannot shadow the installed package.
  rm -rf "$venv/tests" && cp -r tests pyproject.toml "$venv/"
  if ! (cd "$venv" && bin/python -m pytest -q -m "not slow" -p no:cacheprovider "${TESTS[@]}"); then
    echo "check_versions ($mode): FAILED" >&2
    status=1
  fi
done
exit $status
