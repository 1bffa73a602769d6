#!/usr/bin/env bash
# Installs the system packages the test suite needs, from Debian's packages, when missing.
# Idempotent and quiet when everything is there. Every machine of this project runs as root.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# PostgreSQL for the search tests on a real server (a throwaway cluster per test file).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# pgvector when Debian has it (bookworm's main has none; the tests then check the clear error).
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
  && ! compgen -G '/usr/share/postgresql/*/extension/vector.control' >/dev/null; then
  for v in /usr/lib/postgresql/*/; do
    pkg="postgresql-$(basename "$v")-pgvector"
    apt-cache show "$pkg" >/dev/null 2>&1 && missing+=("$pkg")
  done
fi
# A real Secret Service (GNOME Keyring on a private session D-Bus) for the CLI's credential
# store, and secret-tool to read what the CLI kept there.
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
command -v gnome-keyring-daemon >/dev/null 2>&1 || missing+=(gnome-keyring)
command -v secret-tool >/dev/null 2>&1 || missing+=(libsecret-tools)
# HAProxy in front of several `platform serve` nodes (the load-balancer test, loopback only).
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-system: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
