#!/usr/bin/env bash
# Packaging checks on the built packages: publint (strict) and Are The Types Wrong (ESM-only).
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in packages/*/; do
  # create-app is a bin and nothing else: no build, no exports for attw to check.
  if [ ! -f "$dir/tsup.config.ts" ]; then
    node_modules/.bin/publint --strict "$dir"
    continue
  fi
  [ -f "$dir/dist/index.js" ] || { echo "check-packages: $dir is not built (run npm run build)"; exit 1; }
  node_modules/.bin/publint --strict "$dir"
  node_modules/.bin/attw --pack "$dir" --profile esm-only --format ascii
done
echo "check-packages: ok"
