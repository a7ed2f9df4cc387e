# Sourced by scripts/serve, scripts/test and scripts/new-page: create or update the virtual environment in .venv.
# Installs the versions pinned in constraints.txt, and the extras the script needs (EXTRAS:
# "docs" to build and serve the site, "docs test" for every check); installs an extra again
# only when pyproject.toml or constraints.txt changed since it was installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
CPU_INDEX=https://download.pytorch.org/whl/cpu/
EXTRAS=${EXTRAS:-docs test}
# A .venv without pip (left by a venv that failed half way) is made again.
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  echo "Creating .venv with $($PYTHON --version)"
  rm -rf .venv
  if ! "$PYTHON" -m venv .venv; then
    rm -rf .venv
    echo "$PYTHON could not create .venv; on Debian or Ubuntu: apt install python3-venv" >&2
    exit 1
  fi
fi

# What a first install of each extra downloads and unpacks, roughly (measured on Linux).
declare -A SIZE=([docs]="1.2 GB: PyTorch's CPU build, MkDocs, Material, Jupyter" \
  [test]="2.4 GB more: Triton, JAX, Flax, Keras, MLX, Haiku, transformers, PEFT, ONNX Runtime, Playwright")
missing=()
for extra in $EXTRAS; do
  if ! cat pyproject.toml constraints.txt | cmp -s - ".venv/.installed-$extra"; then
    missing+=("$extra")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  for extra in "${missing[@]}"; do
    echo "Installing the '$extra' dependencies into .venv (about ${SIZE[$extra]})."
  done
  echo "A first install takes a few minutes; pip lists each package as it goes."
  # PyPI's PyTorch for Linux is the CUDA build, which needs another Triton than the one
  # pinned (pip: ResolutionImpossible) and gigabytes more: take the CPU build from PyTorch's
  # index, unless pip was given an index already or that one cannot be reached.
  if [ "$(uname -s)" = Linux ] && [ -z "${PIP_EXTRA_INDEX_URL:-}" ] &&
    ! .venv/bin/python -c "import torch" 2>/dev/null &&
    .venv/bin/python -c "import urllib.request as u; u.urlopen('$CPU_INDEX', timeout=5)" \
      2>/dev/null; then
    export PIP_EXTRA_INDEX_URL=$CPU_INDEX
  fi
  .venv/bin/python -m pip install --quiet --upgrade pip
  joined=$(IFS=,; echo "${missing[*]}")
  log=.venv/pip-install.log
  if ! .venv/bin/python -m pip install --progress-bar off --constraint constraints.txt \
    --editable ".[$joined]" 2>&1 | tee "$log" |
    { grep --line-buffered -E '^(Collecting|Successfully installed)' || true; }; then
    echo "pip failed; its whole output is in $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
  for extra in "${missing[@]}"; do
    cat pyproject.toml constraints.txt >".venv/.installed-$extra"
  done
fi

export PATH="$PWD/.venv/bin:$PATH"
# Material prints a notice about MkDocs 2 on every build; this site pins MkDocs 1.
export NO_MKDOCS_2_WARNING=1
