#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Each per-instruction-set object may define only symbols inside its own namespaces (<isa>_lanes, the order's
# inline namespace <isa>, or its exported <isa>_kernels table). Any other inline function it emitted (a weak symbol
# shared by name with other objects) could be picked by the linker for code that runs on a CPU without that
# instruction set, and crash there. Usage: check_isa_symbols.sh OBJECT... (arguments may also be ;-separated lists,
# as CMake's $<TARGET_OBJECTS> gives them; objects not named kernels_* are ignored).
set -euo pipefail
status=0
checked=0
IFS=';' read -r -a objects <<< "$*"
for object in ${objects[@]}; do
  [[ $(basename "$object") == kernels_* ]] || continue
  checked=$((checked + 1))
  isa=$(basename "$object" | sed -E 's/^kernels_([a-z0-9]+)\.cpp\.o(bj)?$/\1/')
  # DW.ref.__gxx_personality_v0 is not code: it is the pointer to C++'s exception personality routine, the same in
  # every object that has unwind cleanups (the sanitizer builds' instrumentation gives some kernels such cleanups).
  foreign=$(nm -C --defined-only "$object" | awk '$2 ~ /^[TWVRDBu]$/ { $1 = ""; $2 = ""; print }' |
            grep -vE "${isa}_lanes|::${isa}::|${isa}_kernels|^ *DW\.ref\.__gxx_personality_v0$" || true)
  if [[ -n $foreign ]]; then
    echo "$object defines symbols outside its instruction set's namespaces:"
    echo "$foreign"
    status=1
  else
    echo "$object: $(nm --defined-only "$object" | wc -l) symbols, all in namespaces of ${isa}"
  fi
done
if ((checked == 0)); then
  echo "no kernels_* objects given"
  exit 1
fi
exit $status
