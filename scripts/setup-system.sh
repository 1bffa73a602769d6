#!/usr/bin/env bash
# Installs the system packages the test suite needs, from Debian's packages, when missing.
# Idempotent and quiet when everything is there. Every machine of this project runs as root.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-system: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
