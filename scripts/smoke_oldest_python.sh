#!/usr/bin/env bash
# Smoke test on the oldest Python this project supports (3.9): a fresh virtual environment,
# `pip install .` and nothing else, then the CLI and flake8 on a small project configured by a
# [tool.flake8-device] table. Run by .ci/run; skipped, with a note, where no Python 3.9 exists.
#   scripts/smoke_oldest_python.sh [PYTHON]    (default: pyenv's 3.9, else python3.9 on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${1:-}
if [[ -z $python ]]; then
    if command -v pyenv >/dev/null 2>&1; then
        version=$(pyenv versions --bare 2>/dev/null | grep -E '^3\.9(\.[0-9]+)?$' | sort -V | tail -n 1 || true)
        [[ -n $version ]] && python="$(pyenv root)/versions/$version/bin/python"
    fi
    if [[ -z $python ]] && command -v python3.9 >/dev/null 2>&1; then
        python=$(command -v python3.9)
    fi
fi
if [[ -z $python || ! -x $python ]]; then
    echo "smoke test on Python 3.9 skipped: no Python 3.9 on this machine (pyenv versions, python3.9)"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "smoke test on $("$python" --version 2>&1) ($python)"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "$root"
mkdir -p "$work/project/src" "$work/project/tests"
cat > "$work/project/pyproject.toml" <<'TOML'
[project]
name = "demo"

[tool.flake8-device]
extend-select = ["DEV404"]

[tool.flake8-device.per-file-ignores]
"tests/*" = ["DEV101"]
TOML
bug='import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
model.to(device)
model.head = nn.Linear(2, 2)'
printf '%s\n' "$bug" > "$work/project/src/train.py"
printf '%s\n' "$bug" > "$work/project/tests/test_train.py"
# The table switches DEV404 on everywhere and DEV101 off in tests/.
expected='./src/train.py:4:10: DEV404
./src/train.py:7:14: DEV101
./tests/test_train.py:4:10: DEV404'
cd "$work/project"
status=0
cli=$("$work/venv/bin/flake8-device" . 2>"$work/cli.err") || status=$?
plugin=$("$work/venv/bin/python" -m flake8 --select DEV . 2>"$work/flake8.err") || true
codes() { grep -o '^[^ ]*: DEV[0-9]*' | sort; }
if [[ $status -ne 1 || "$(printf '%s\n' "$cli" | codes)" != "$expected" ]]; then
    echo "smoke test FAILED: the CLI reported (exit $status):"; printf '%s\n' "$cli"; cat "$work/cli.err"; exit 1
fi
if [[ "$(printf '%s\n' "$plugin" | codes)" != "$expected" ]]; then
    echo "smoke test FAILED: flake8 reported:"; printf '%s\n' "$plugin"; cat "$work/flake8.err"; exit 1
fi
echo "smoke test on Python 3.9 passed: the CLI and flake8 report the expected findings"
