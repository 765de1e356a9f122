#!/usr/bin/env bash
# Install Debian's redis-server for the rooms tests (tests/support/redis_server.py starts its
# own on a free port in a temporary folder; nothing here starts or enables a service).
# Idempotent: does nothing when redis-server is on PATH. Needs root (CI runs as root).
set -euo pipefail

if command -v redis-server >/dev/null; then
    echo "setup-redis: $(redis-server --version | cut -d' ' -f1-3) is installed"
    exit 0
fi
echo "setup-redis: installing redis-server"
apt-get update -qq
# policy-rc.d 101: the package's scripts may not start the service (the tests start their own).
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod +x "$policy"
    made_policy=1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    || { [ "$made_policy" = 1 ] && rm -f "$policy"; exit 1; }
[ "$made_policy" = 1 ] && rm -f "$policy"
command -v redis-server >/dev/null
echo "setup-redis: $(redis-server --version | cut -d' ' -f1-3) installed"
