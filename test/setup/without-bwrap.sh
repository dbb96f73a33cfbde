#!/bin/sh
# Runs "$@" in a private mount namespace (run it under `unshare -m`) whose /usr/bin has no bwrap
# (and no apt-get or apt when HIDE_APT=1): a machine without bubblewrap, for `make run`. FARM is an
# empty directory to build the replacement /usr/bin in. Nothing outside the namespace changes.
set -e
[ -n "$FARM" ] || { echo "FARM: an empty directory" >&2; exit 2; }
mkdir -p "$FARM/orig" "$FARM/bin"
mount --bind /usr/bin "$FARM/orig"
hide="-name bwrap"
[ "$HIDE_APT" = 1 ] && hide="$hide -o -name apt-get -o -name apt"
# One find per kind, not a process per file (/usr/bin has a thousand): a link is copied as it is
# (its target, relative to /usr/bin, resolves the same there), anything else is linked to.
# shellcheck disable=SC2086
find "$FARM/orig/" -mindepth 1 -maxdepth 1 ! \( $hide \) -type l -exec cp -P -t "$FARM/bin/" {} +
# shellcheck disable=SC2086
find "$FARM/orig/" -mindepth 1 -maxdepth 1 ! \( $hide \) ! -type l -exec ln -s -t "$FARM/bin/" {} +
mount --bind "$FARM/bin" /usr/bin
exec "$@"
