#!/usr/bin/env bash
# Install the Debian packages listed in .ci/apt-packages.txt that are missing.
# Used by `make test` (and so by CI): PostgreSQL for the storage tests, Chromium for the
# browser tests, fonts for the data generator. Skips quietly when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."
list=.ci/apt-packages.txt
[ -f "$list" ] || exit 0
missing=()
while read -r pkg; do
  pkg=${pkg%%#*}; pkg=$(echo "$pkg" | xargs)
  [ -n "$pkg" ] || continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$list"
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing system packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
