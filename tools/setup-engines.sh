#!/usr/bin/env bash
# Install the real Godot engines used as test oracles, idempotently.
#
#   host:          godot3-server (Debian bookworm: Godot 3.2.3)
#   sid chroot:    godot (Godot 4.6.x) and godot3-server (Godot 3.6.x), and Godot 4.6's
#                  release export template (godot-template-release, for the benchmarks)
#
# The chroot lives in a cache folder outside the repository
# (GDVARIANT_CHROOT, default ~/.cache/gdvariant/sid-chroot). Needs root.
# The Debian mirror is the one the host's apt already uses.
# Prints the engine versions at the end; exits non-zero if any is missing.
set -euo pipefail

CHROOT=${GDVARIANT_CHROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/gdvariant/sid-chroot}
say() { printf '[setup-engines] %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
    say "needs root (debootstrap, chroot, bind mounts)"; exit 1
fi

mirror() {
    # First Debian archive URI configured on the host (deb822 or one-line format).
    local uri
    uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
          | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri=$(awk '$1=="deb"{print $2}' /etc/apt/sources.list | grep -E '/debian/?$' | head -n1 || true)
    fi
    [ -n "$uri" ] || { say "no Debian mirror found in the host's apt sources"; exit 1; }
    printf '%s\n' "$uri"
}

host_install() {
    local missing=()
    command -v godot3-server >/dev/null || missing+=(godot3-server)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing on the host: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

CHROOT_PACKAGES=(godot godot3-server godot-template-release ca-certificates)

make_chroot() {
    if [ -x "$CHROOT/usr/bin/godot" ] && [ -x "$CHROOT/usr/bin/godot3-server" ] \
        && [ -x "$CHROOT/usr/bin/godot-template-release" ]; then
        return
    fi
    if [ ! -f "$CHROOT/.debootstrap-done" ]; then
        say "debootstrap sid into $CHROOT (a few minutes)"
        rm -rf "$CHROOT"
        mkdir -p "$CHROOT"
        debootstrap --variant=minbase sid "$CHROOT" "$(mirror)" >/dev/null
        touch "$CHROOT/.debootstrap-done"
    fi
    cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
    # The mirror may serve a frozen snapshot whose sid Release file is past its Valid-Until date.
    printf 'Acquire::Check-Valid-Until "false";\n' > "$CHROOT/etc/apt/apt.conf.d/99gdvariant"
    mount_chroot
    say "installing ${CHROOT_PACKAGES[*]} in the chroot"
    chroot "$CHROOT" apt-get update -qq
    chroot "$CHROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${CHROOT_PACKAGES[@]}" >/dev/null
}

mount_chroot() {
    local d
    for d in proc sys dev; do
        mkdir -p "$CHROOT/$d"
        mountpoint -q "$CHROOT/$d" || mount --bind "/$d" "$CHROOT/$d"
    done
}

host_install
make_chroot
mount_chroot

v4=$(chroot "$CHROOT" env HOME=/tmp godot --version 2>/dev/null | tail -n1 || true)
v36=$(chroot "$CHROOT" env HOME=/tmp godot3-server --version 2>/dev/null | tail -n1 || true)
v32=$(godot3-server --version 2>/dev/null | tail -n1 || true)
say "godot 4 (chroot):   $v4"
say "godot 3 (chroot):   $v36"
say "godot 3 (host):     $v32"
case "$v4" in 4.*) ;; *) say "Godot 4 did not answer"; exit 1;; esac
case "$v36" in 3.*) ;; *) say "Godot 3.6 did not answer"; exit 1;; esac
case "$v32" in 3.*) ;; *) say "Godot 3.2 did not answer"; exit 1;; esac
printf 'GDVARIANT_CHROOT=%s\n' "$CHROOT"
