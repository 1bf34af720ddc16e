#!/usr/bin/env bash
# The README's test command: sets everything up from nothing, then runs the suite.
#   - a virtual environment in .venv (reused when present),
#   - the package with its test extras, and torch==2.13.0, which the meta-device
#     oracle needs, as a CPU build (about 190 MB): where pip would pick the
#     multi-GB CUDA build, from PyTorch's CPU wheel index (scripts/torch_cpu.py
#     asks pip which build it would pick, downloading nothing),
#   - Neovim from Debian's packages, for the test of the language server with a
#     real editor client (tests/test_server_nvim.py), where apt-get can install
#     it; without it that one test is skipped and says so,
#   - pytest, with any arguments passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvim >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim; } >/dev/null 2>&1 \
    || echo "scripts/test.sh: could not install neovim; tests/test_server_nvim.py will be skipped" >&2
fi
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
mapfile -t torch_args < <(.venv/bin/python scripts/torch_cpu.py)
.venv/bin/python -m pip install --quiet "${torch_args[@]}"
exec .venv/bin/python -m pytest "$@"
