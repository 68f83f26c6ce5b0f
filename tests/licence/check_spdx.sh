#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every C++ source, script and CMake file of Passlab names its licence (GPL-3.0-or-later) in an
# SPDX line at its top (after a #! line). Fails naming each file without one.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
status=0
while IFS= read -r -d '' file; do
  if ! head -n 2 "$file" | grep -q 'SPDX-License-Identifier: GPL-3.0-or-later'; then
    echo "$file: no 'SPDX-License-Identifier: GPL-3.0-or-later' line at its top"
    status=1
  fi
done < <(find core backends session editors views app bench tools tests scripts .ci -type f \
           \( -name '*.cpp' -o -name '*.h' -o -name '*.py' -o -name '*.sh' -o -name 'CMakeLists.txt' -o -name run \) \
           -not -path 'tests/data/*' -not -path 'tests/fuzz/seeds/*' -print0)
[ $status -eq 0 ] && echo "licence: every source file says GPL-3.0-or-later"
exit $status
