#!/usr/bin/env bash
# Installs the Debian packages mbstep needs, only those that are missing (fast when all are).
set -euo pipefail
# libnetcdf-dev: the NetCDF output (CMake MBSTEP_WITH_NETCDF=AUTO builds it when found).
# --tests: also what the output tests use to read and draw the VTK series (Debian's VTK and a
# virtual X server) and to read the NetCDF file back (ncdump, python3-netcdf4); without them
# those tests report a skip.
packages=(cmake ninja-build g++ make pkg-config libeigen3-dev libtbb-dev libboost-graph-dev
          libboost-program-options-dev doctest-dev libsuitesparse-dev libnetcdf-dev python3
          python3-matplotlib clang-format git libopenmpi-dev openmpi-bin)
if [ "${1:-}" = "--tests" ]; then
    packages+=(python3-vtk9 xvfb xauth libgl1-mesa-dri netcdf-bin python3-netcdf4)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
