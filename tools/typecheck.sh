#!/usr/bin/env bash
# mypy --strict on every package (`make lint`, hence CI).
#
# The folders install under the `shanghai` namespace through setuptools' package-dir,
# an import hook mypy cannot follow (run on the folders, it cannot resolve
# `shanghai.engine`), so a temporary tree of symlinks named as the packages stands in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mypy=${MYPY:-$root/.venv/bin/mypy}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/shanghai"
touch "$tree/shanghai/__init__.py"
packages=(engine vision server cli datasets models)
args=()
for package in "${packages[@]}"; do
    ln -s "$root/$package" "$tree/shanghai/$package"
    args+=(-p "shanghai.$package")
done
cd "$tree"
"$mypy" --config-file "$root/pyproject.toml" --cache-dir "$root/.mypy_cache" --strict "${args[@]}"
