#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Puts the license's SPDX identifier on the first line of every tracked source file (after a #! line, which must
# stay first), in the comment syntax of its language:
#   // C++ and CUDA (.hpp .cpp .cu .cuh .inl)   /* */ C (.h .c)   ! Fortran (.f90 .F90 .fi)   # Python, CMake, shell
#   spdx_headers.sh           adds the line where it is missing
#   spdx_headers.sh --check   lists the files without it; exit 1 if any (the spdx_headers test)
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
case ${1:-} in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
id="SPDX-License-Identifier: BSD-3-Clause"

line_for() {  # the SPDX line for file $1
  case $1 in
    *.hpp | *.cpp | *.cu | *.cuh | *.inl) echo "// $id" ;;
    *.h | *.c) echo "/* $id */" ;;
    *.f90 | *.F90 | *.fi) echo "! $id" ;;
    *) echo "# $id" ;;
  esac
}

missing=()
while IFS= read -r file; do
  [[ -f $file ]] || continue  # deleted in the work tree
  want=$(line_for "$file")
  first=$(head -n1 "$file")
  if [[ $first == '#!'* ]]; then
    [[ $(sed -n 2p "$file") == "$want" ]] && continue
  else
    [[ $first == "$want" ]] && continue
  fi
  missing+=("$file")
  ((check)) && continue
  if [[ $first == '#!'* ]]; then
    sed -i "1a $want" "$file"
  else
    sed -i "1i $want" "$file"
  fi
done < <(git ls-files '*.hpp' '*.cpp' '*.h' '*.c' '*.cu' '*.cuh' '*.inl' '*.f90' '*.F90' '*.fi' '*.py' '*.pyi' \
  '*.cmake' 'CMakeLists.txt' '*/CMakeLists.txt' '*.sh')

if ((check)); then
  if ((${#missing[@]})); then
    echo "${#missing[@]} file(s) without '$id' on their first line (run tools/spdx_headers.sh):"
    printf '  %s\n' "${missing[@]}"
    exit 1
  fi
  echo "every source file carries $id"
elif ((${#missing[@]})); then
  echo "added the SPDX line to ${#missing[@]} file(s)"
fi
