#!/usr/bin/env bash
# Installs rocelab's build dependencies from Debian packages when any is missing.
#   --plots  also python3-matplotlib (`rocelab plot` and `report` figures)
# python3-pandas: the rocelab Python package's DataFrame readers (python/, tested);
# python3-venv, -pip, -setuptools: its installation into a virtual environment (tested).
set -euo pipefail
packages=(g++ cmake ninja-build libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev libbenchmark-dev python3 python3-pandas python3-venv python3-pip
          python3-setuptools libopenmpi-dev openmpi-bin)
[ "${1:-}" = "--plots" ] && packages+=(python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
