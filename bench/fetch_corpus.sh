#!/usr/bin/env bash
# Fetch the library corpus: the released sources of popular PyTorch projects, taken
# from their wheels with pip (nothing is executed or installed), pinned so that figures
# stay comparable from run to run.
#
# usage: bench/fetch_corpus.sh DEST [small|full|all]
#   small: timm, pytorch-lightning, torchmetrics, accelerate           (~315k lines)
#   full:  small + mosaicml (Composer), kornia, transformers           (~1.7M lines)
#   all:   full + diffusers, espnet, torchrl, pyro-ppl, gpytorch, mmengine
# Result: DEST/src/<project>/... (.py files), DEST/MANIFEST.tsv (project, version, files,
# lines). <project> is the wheel's distribution name (pytorch_lightning, mosaicml,
# pyro_ppl, ...), so a path reads `transformers/transformers/trainer.py`.
# PYTHON picks the interpreter whose pip downloads (default python3).
#
# torchrl ships only platform wheels; its .py files are the same on every platform, so
# the wheel pip picks for this machine serves.  The application corpus (training
# scripts and notebooks of pinned repositories) is built by bench/apps/extract.py.
set -euo pipefail
dest=${1:?usage: fetch_corpus.sh DEST [small|full|all]}
size=${2:-small}
python=${PYTHON:-python3}
small=(timm==1.0.31 pytorch-lightning==2.6.6 torchmetrics==1.9.0 accelerate==1.15.0)
full=(mosaicml==0.32.1 kornia==0.9.0 transformers==5.23.0)
added=(diffusers==0.42.1 espnet==202511 torchrl==0.14.1 pyro-ppl==1.9.2 gpytorch==1.15.2 mmengine==0.10.7)
case "$size" in
  small) pkgs=("${small[@]}") ;;
  full) pkgs=("${small[@]}" "${full[@]}") ;;
  all) pkgs=("${small[@]}" "${full[@]}" "${added[@]}") ;;
  *) echo "fetch_corpus.sh: unknown size '$size' (small, full or all)" >&2; exit 2 ;;
esac
mkdir -p "$dest/wheels" "$dest/src"
"$python" -m pip download -q --no-deps --only-binary=:all: -d "$dest/wheels" "${pkgs[@]}"
printf 'project\tversion\tfiles\tlines\n' > "$dest/MANIFEST.tsv.part"
for pin in "${pkgs[@]}"; do
  # a wheel's file name spells the distribution with underscores: pyro-ppl -> pyro_ppl
  name=${pin%%==*}
  name=${name//-/_}
  version=${pin##*==}
  whl=$(ls "$dest/wheels/$name-$version-"*.whl | head -n 1)
  out="$dest/src/$name"
  rm -rf "$out" && mkdir -p "$out"
  "$python" - "$whl" "$out" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if n.endswith(".py"):
            z.extract(n, sys.argv[2])
PY
  files=$(find "$out" -name '*.py' | wc -l)
  lines=$(find "$out" -name '*.py' -print0 | xargs -0 cat | wc -l)
  printf '%s\t%s\t%s\t%s\n' "$name" "$version" "$files" "$lines" >> "$dest/MANIFEST.tsv.part"
done
mv "$dest/MANIFEST.tsv.part" "$dest/MANIFEST.tsv"
cat "$dest/MANIFEST.tsv"
