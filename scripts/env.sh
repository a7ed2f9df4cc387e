# Sourced by scripts/serve and scripts/test: create or update the virtual environment in .venv.
# Installs the versions pinned in constraints.txt; reinstalls only when pyproject.toml or
# constraints.txt changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.installed-dependencies
if ! cat pyproject.toml constraints.txt | cmp -s - "$stamp"; then
  echo "Installing dependencies into .venv (pyproject.toml or constraints.txt changed)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet --constraint constraints.txt --editable ".[docs,test]"
  cat pyproject.toml constraints.txt >"$stamp"
fi

export PATH="$PWD/.venv/bin:$PATH"
# Material prints a notice about MkDocs 2 on every build; this site pins MkDocs 1.
export NO_MKDOCS_2_WARNING=1
