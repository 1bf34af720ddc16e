#!/usr/bin/env bash
# Peak memory on one very large file (the README's "Large files" table), with /usr/bin/time -v.
#   bash bench/memory/run.sh [FILE]
# FILE defaults to torch's torch/testing/_internal/common_methods_invocations.py (27,820 lines),
# from the torch that scripts/test.sh installs into .venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python
file=${1:-$("$python" -c 'import pathlib, torch; print(pathlib.Path(torch.__file__).parent / "testing/_internal/common_methods_invocations.py")')}
[[ -x /usr/bin/time ]] || { echo "needs GNU time (/usr/bin/time -v)"; exit 2; }
echo "$file: $(wc -l < "$file") lines"
peak() {  # label, command...
    local label=$1; shift
    local kib
    kib=$( (/usr/bin/time -v "$@" >/dev/null) 2>&1 | awk -F': ' '/Maximum resident set size/ {print $2}')
    printf '%-50s %8d KiB  %5d MiB\n' "$label" "$kib" $((kib / 1024))
}
peak "python, import libcst" "$python" -c 'import libcst'
peak "ast.parse of the file" "$python" -c 'import ast, sys; ast.parse(open(sys.argv[1], "rb").read())' "$file"
peak "libcst.parse_module of the whole file" "$python" -c 'import libcst, sys; libcst.parse_module(open(sys.argv[1], "rb").read())' "$file"
peak "flake8-device -j1 (the rules on by default)" .venv/bin/flake8-device -j1 --exit-zero "$file"
peak "flake8-device -j1 --select DEV (every rule)" .venv/bin/flake8-device -j1 --exit-zero --select DEV "$file"
