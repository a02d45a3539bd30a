#!/usr/bin/env bash
# Installs iofleet's build, test and demo dependencies from Debian's packages; idempotent.
# The last line is for the Debian packages (tests/vm/build-debs.sh) and the QEMU guests that
# test them with Debian's kernel (tests/vm, scripts/demo.sh --kernel).
set -euo pipefail

# scdoc builds the man pages (a build dependency); zsh only runs the zsh completion test;
# ansible, ansible-lint and python3-apt (the apt module) test deploy/ansible; python3-pil reads
# the pictures headless Chromium makes of the plots (it-report).
pkgs=(build-essential cmake pkg-config
      libzmq3-dev libprotobuf-c-dev protobuf-c-compiler libsystemd-dev uuid-dev
      libcmocka-dev libinih-dev libjansson-dev libsodium-dev liburing-dev libaio-dev libxxhash-dev nettle-dev
      libnfs-dev nfs-ganesha nfs-ganesha-vfs rpcbind nfs-kernel-server libmicrohttpd-dev
      iproute2 jq curl python3 python3-yaml libxml2-utils systemd fio clang libclang-rt-14-dev chromium prometheus
      python3-pil
      dbus scdoc zsh
      ansible ansible-lint python3-apt
      dpkg-dev debhelper lintian
      qemu-system-x86 linux-image-amd64 busybox-static cpio e2fsprogs)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
