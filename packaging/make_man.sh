#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the man pages passlab-cli.1 and passlab.1 from the programs' own --help (help2man), with
# every subcommand's options and the FILES and ENVIRONMENT sections, so the pages never drift from
# the programs. Usage: make_man.sh PASSLAB_CLI PASSLAB OUT_DIR
set -euo pipefail
out=$3
mkdir -p "$out"
# The programs by their plain names on PATH, so their usage lines read "passlab-cli", not a path.
bin=$(mktemp -d)
common=$(mktemp)
trap 'rm -rf "$bin" "$common" "$common.cli" "$common.studio"' EXIT
ln -s "$(realpath "$1")" "$bin/passlab-cli"
ln -s "$(realpath "$2")" "$bin/passlab"
export PATH="$bin:$PATH" QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$bin}

cat > "$common" <<'TXT'
[FILES]
.TP
.I /usr/share/passlab/targets/*.json
Target presets (PC1\(enPC8, geforce1, geforce3, nv30, nv40, ps_2_0, radeon8500, webgl1): limits and cost models.
.TP
.I /usr/share/passlab/rpu/
The RPU machine descriptions and its runtime library.
.TP
.I /usr/share/passlab/samples/
Sample shaders, light setups, scenes and textures.
.PP
The data folder is found relative to the program (\fI../share/passlab\fR), so a relocated install
works.
[ENVIRONMENT]
.TP
.B PASSLAB_DATA_DIR
A folder laid out like \fI/usr/share/passlab\fR to use instead of the installed data.
[SEE ALSO]
TXT

{
  cat "$common"
  echo '.BR passlab (1)'
  echo '[SUBCOMMANDS]'
  for sub in $(passlab-cli --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
    echo '.SS "'"$sub"'"'
    echo '.nf'
    passlab-cli "$sub" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
    echo '.fi'
    if [ "$sub" = rpu ]; then
      for rsub in $(passlab-cli rpu --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
        echo '.SS "rpu '"$rsub"'"'
        echo '.nf'
        passlab-cli rpu "$rsub" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
        echo '.fi'
      done
    fi
  done
} > "$common.cli"
{
  cat "$common"
  echo '.BR passlab-cli (1)'
} > "$common.studio"

help2man --no-info --no-discard-stderr --section=1 --source=Passlab \
  --name='compile, partition, render and run shaders under hardware limits (headless)' \
  --include="$common.cli" --output="$out/passlab-cli.1" passlab-cli
help2man --no-info --section=1 --source=Passlab \
  --name='Passlab Studio, the IDE for shader compilation under hardware limits' \
  --include="$common.studio" --output="$out/passlab.1" passlab
