#!/usr/bin/env bash
# Installs the Debian packages tileplan builds with, when any is missing.
set -euo pipefail
# The Python package: pybind11 (headers and CMake package), Python's headers, pytest.
packages=(cmake ninja-build g++ make libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
          python3-dev python3-pybind11 pybind11-dev python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
