#!/usr/bin/env bash
# Installs the repository's git hooks into this clone (.git/hooks); run once per clone.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
hooks="$(git rev-parse --git-path hooks)"
mkdir -p "$hooks"
printf '#!/bin/sh\nexec node scripts/check-staged-imports.mjs\n' >"$hooks/pre-commit"
chmod +x "$hooks/pre-commit"
echo "installed $hooks/pre-commit (scripts/check-staged-imports.mjs)"
