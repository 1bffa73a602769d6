#!/usr/bin/env bash
# Typechecks each package with its own tsconfig: Web-standard packages without Node types,
# their tests and the broker with them.
set -euo pipefail
cd "$(dirname "$0")/.."
tsc=node_modules/.bin/tsc
for dir in packages/*/; do
  for config in "$dir"tsconfig.json "$dir"tsconfig.test.json "$dir"tsconfig.typetest.json; do
    [ -f "$config" ] && "$tsc" -p "$config"
  done
done
"$tsc" -p bench/tsconfig.json
"$tsc" -p tsconfig.scripts.json
# Example apps, frontend included, typed by their generated platform-env.gen.d.ts.
for config in examples/*/tsconfig.json; do "$tsc" -p "$config"; done
echo "typecheck: ok"
