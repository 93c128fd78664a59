#!/usr/bin/env bash
# Installs Debian's Chromium for the report's browser test, if it is not
# there yet. The test renders report.html headless and checks the screenshot.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium is missing; install the Debian package 'chromium' (needs root)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
chromium --version
