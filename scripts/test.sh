#!/usr/bin/env bash
# The README's test command: sets everything up from nothing, then runs the suite.
#   - a virtual environment in .venv (reused when present),
#   - the package with its test extras, and torch==2.13.0 (a CPU build; a bare
#     `torch` requirement would pull a multi-GB CUDA build), which the
#     meta-device oracle needs,
#   - pytest, with any arguments passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]" "torch==2.13.0"
exec .venv/bin/python -m pytest "$@"
