# Sourced by scripts/serve and scripts/test: create or update the virtual environment in .venv.
# Reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.installed-pyproject
if ! cmp -s pyproject.toml "$stamp"; then
  echo "Installing dependencies into .venv (pyproject.toml changed)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet --editable ".[docs,test]"
  cp pyproject.toml "$stamp"
fi

export PATH="$PWD/.venv/bin:$PATH"
# Material prints a notice about MkDocs 2 on every build; this site pins MkDocs 1.
export NO_MKDOCS_2_WARNING=1
