#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The module order of docs/architecture.md: core <- backends <- session <- editors, views <- app. Fails, naming
# the file and line, if a module includes one above it or a Qt-free module includes Qt.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

declare -A allowed=(
  [core]="core"
  [backends]="core backends"
  [session]="core backends session"
  [editors]="core backends session editors"
  [views]="core backends session views"
  [app]="core backends session editors views app"
)
status=0
for module in core backends session editors views app; do
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; text=${rest#*:}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$text")
    [ -d "$target" ] || continue   # an include of the module's own relative files or a build one
    case " ${allowed[$module]} " in
      *" $target "*) ;;
      *) echo "$file:$line: $module/ includes $target/, a module above it: $text"; status=1 ;;
    esac
  done < <(grep -rnE '^\s*#\s*include "[a-z_]+/' "$module" --include='*.h' --include='*.cpp' || true)
done
for module in core backends session; do
  if hits=$(grep -rnE '^\s*#\s*include <Q[A-Za-z]*>|^\s*#\s*include <Qt' "$module" --include='*.h' --include='*.cpp'); then
    echo "$hits" | sed "s/\$/   ($module\/ never includes Qt)/"
    status=1
  fi
done
[ $status -eq 0 ] && echo "layering: core <- backends <- session <- editors, views <- app holds"
exit $status
