#!/bin/sh
# Runs "$@" in a private mount namespace (run it under `unshare -m`) whose /usr/bin has no bwrap
# (and no apt-get or apt when HIDE_APT=1): a machine without bubblewrap, for `make run`. FARM is an
# empty directory to build the replacement /usr/bin in. Nothing outside the namespace changes.
set -e
[ -n "$FARM" ] || { echo "FARM: an empty directory" >&2; exit 2; }
mkdir -p "$FARM/orig" "$FARM/bin"
mount --bind /usr/bin "$FARM/orig"
for f in "$FARM"/orig/*; do
  n=$(basename "$f")
  [ "$n" = bwrap ] && continue
  [ "$HIDE_APT" = 1 ] && { [ "$n" = apt-get ] || [ "$n" = apt ]; } && continue
  # a link is copied as it is (its target, relative to /usr/bin, resolves the same there)
  if [ -L "$f" ]; then cp -P "$f" "$FARM/bin/"; else ln -s "$f" "$FARM/bin/$n"; fi
done
mount --bind "$FARM/bin" /usr/bin
exec "$@"
