#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the browser tests (site/browser.test.ts), which drive
# /usr/bin/chromium with playwright-core. As root it installs the package with apt-get; otherwise it stops
# with the command to run. It never lets the tests be skipped silently.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium (apt-get install -y chromium)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y chromium
  if [ ! -x "$CHROMIUM" ]; then
    echo "ensure-chromium: apt-get installed chromium but $CHROMIUM is still missing" >&2
    exit 1
  fi
  exit 0
fi

cat >&2 <<MESSAGE
ensure-chromium: $CHROMIUM is missing, and the browser tests need it.
Install it as root, then run the tests again:

  sudo apt-get update && sudo apt-get install -y chromium

MESSAGE
exit 1
