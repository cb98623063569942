#!/usr/bin/env bash
# Renders an SVG to a PNG with headless Chromium (Debian package `chromium`).
# Usage: scripts/render_svg.sh IN.svg OUT.png
# The window takes the SVG's own width and height, so the PNG shows it whole.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 IN.svg OUT.png" >&2
  exit 2
fi
in=$(realpath "$1")
out=$(realpath -m "$2")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "$0: chromium is not installed (apt-get install -y chromium)" >&2
  exit 3
fi
size=$(head -c 2000 "$in" | grep -o '<svg[^>]*' | head -n 1)
width=$(printf '%s' "$size" | sed -n 's/.* width="\([0-9]*\)".*/\1/p')
height=$(printf '%s' "$size" | sed -n 's/.* height="\([0-9]*\)".*/\1/p')
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$profile" --screenshot="$out" \
  --window-size="${width:-1200},${height:-900}" "file://$in" >/dev/null 2>&1
test -s "$out"
