# QEMU guests running Debian's own kernel, for what this host's kernel lacks (kernel nfsd, the
# kernel NFS client) and what a container lacks (systemd as PID 1). Sourced by tests/vm/vm-*.sh
# and scripts/demo.sh; see tests/vm/README.md.
#
#   vm_require                 exit 77 (saying why) where qemu cannot run at all
#   vm_prepare CACHE           the kernel (vmlinux unpacked once) and the initramfs in CACHE
#   vm_disk FILE SIZE          a fresh ext4 image: the guest's writable layers and /srv, /nfs,
#                              /export, /mnt live on it, so a guest rebooted on it finds its state
#   vm_boot OUT SCENARIO [VAR=VALUE...]
#                              boots one guest that runs the script SCENARIO (a host path) and
#                              powers off; OUT (a host directory, shared read-write) gets its
#                              log (OUT/log), its status (OUT/status) and whatever it writes to
#                              /vm/out. VM_SYSTEMD=1: systemd is PID 1 and runs the scenario
#                              from a oneshot unit; VM_DISK=FILE: the disk from vm_disk;
#                              VM_TIMEOUT (seconds, default 600) bounds the whole boot.
#                              Returns the scenario's exit status (124: timed out, 125: the
#                              guest died without one); "reboot" in OUT/status when the
#                              scenario reset the guest on purpose (vm_reset).
#
# Guest layout: the host's / is shared read-only over 9p; each top-level directory is an
# overlay (9p below, the disk or a tmpfs above), so host binaries run unchanged and the guest
# may install packages; /srv /nfs /export /mnt are plain ext4 (knfsd cannot export 9p or
# overlayfs). Nothing is networked but what the scenario builds (namespaces, veth, bridges).

VM_SRC=${VM_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VM_QEMU=${VM_QEMU:-qemu-system-x86_64}

vm_skip() {
	echo "SKIP: $*" >&2
	exit 77
}

vm_require() {
	command -v "$VM_QEMU" >/dev/null || vm_skip "$VM_QEMU is not installed (scripts/install-deps.sh installs qemu-system-x86)"
	"$VM_QEMU" -version >/dev/null 2>&1 || vm_skip "$VM_QEMU does not run here"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || vm_skip "no kernel in /boot (scripts/install-deps.sh installs linux-image-amd64)"
	[ -x /bin/busybox ] || vm_skip "no /bin/busybox (scripts/install-deps.sh installs busybox-static)"
	command -v cpio >/dev/null || vm_skip "cpio is not installed"
	command -v python3 >/dev/null || vm_skip "python3 is not installed"
	[ "$(id -u)" -eq 0 ] || vm_skip "the guest shares the host's / with its owners: needs root"
}

# The accelerator: KVM only where the CPU offers vmx or svm (a nested PVM /dev/kvm without
# them does not boot Debian's kernel); TCG otherwise, la57 off (it slows emulation).
vm_accel() {
	if [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi -cpu max,la57=off"
	fi
}

# The newest installed kernel's version.
vm_kernel_version() {
	local k
	k=$(ls /boot/vmlinuz-* | sed 's#^/boot/vmlinuz-##' | sort -V | tail -n1)
	[ -d "/lib/modules/$k" ] || { echo "vm: /lib/modules/$k is missing" >&2; return 1; }
	echo "$k"
}

# The ELF vmlinux inside a bzImage: the in-guest decompression costs seconds under TCG, and
# qemu enters an ELF kernel through PVH directly.
vm_unpack_kernel() {
	python3 - "$1" "$2" <<'EOF'
import lzma, sys, zlib
data = open(sys.argv[1], "rb").read()
def tries():
    i = data.find(b"\xfd7zXZ\x00")
    while i >= 0:
        yield lambda d=data[i:]: lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(d)
        i = data.find(b"\xfd7zXZ\x00", i + 1)
    i = data.find(b"\x1f\x8b\x08")
    while i >= 0:
        yield lambda d=data[i:]: zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(d)
        i = data.find(b"\x1f\x8b\x08", i + 1)
for t in tries():
    try:
        out = t()
    except Exception:
        continue
    if out[:4] == b"\x7fELF":
        open(sys.argv[2] + ".tmp", "wb").write(out)
        import os
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        sys.exit(0)
sys.exit("vm: no xz or gzip ELF kernel found in " + sys.argv[1])
EOF
}

# Modules the initramfs loads, with their dependencies first (from modules.dep).
vm_modules_ordered() {
	local kv=$1
	shift
	python3 - "/lib/modules/$kv/modules.dep" "$@" <<'EOF'
import sys
deps = {}
for line in open(sys.argv[1]):
    mod, _, rest = line.partition(":")
    deps[mod.rsplit("/", 1)[-1].split(".ko")[0].replace("-", "_")] = (mod, rest.split())
byfile = {v[0]: k for k, v in deps.items()}
order, seen = [], set()
def visit(name):
    if name in seen:
        return
    seen.add(name)
    path, ds = deps[name]
    for d in ds:
        visit(byfile[d])
    order.append(path)
for want in sys.argv[2:]:
    visit(want.replace("-", "_"))
print("\n".join(order))
EOF
}

vm_prepare() {
	local cache=$1 kv stamp mods tmp
	mkdir -p "$cache"
	kv=$(vm_kernel_version) || return 1
	VM_KERNEL=$cache/vmlinux-$kv
	if [ ! -s "$VM_KERNEL" ]; then
		vm_unpack_kernel "/boot/vmlinuz-$kv" "$VM_KERNEL" || return 1
	fi
	VM_INITRD=$cache/initrd-$kv.cpio
	stamp=$(cat "$VM_SRC/tests/vm/guest/init" /bin/busybox "/lib/modules/$kv/modules.dep" | sha256sum | cut -c1-16)
	if [ -s "$VM_INITRD" ] && [ "$(cat "$VM_INITRD.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	mods=$(vm_modules_ordered "$kv" virtio_pci virtio_blk 9pnet_virtio 9p overlay crc32c_generic ext4) || return 1
	tmp=$(mktemp -d)
	mkdir -p "$tmp"/{bin,dev,proc,sys,host,out,persist,newroot,modules}
	cp /bin/busybox "$tmp/bin/busybox"
	cp "$VM_SRC/tests/vm/guest/init" "$tmp/init"
	chmod 0755 "$tmp/init"
	for m in $mods; do
		cp "/lib/modules/$kv/$m" "$tmp/modules/"
		basename "$m" >>"$tmp/modules/order"
	done
	(cd "$tmp" && find . | cpio -o -H newc --quiet) >"$VM_INITRD.tmp" || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	mv "$VM_INITRD.tmp" "$VM_INITRD"
	echo "$stamp" >"$VM_INITRD.stamp"
}

vm_disk() {
	local file=$1 size=${2:-2G}
	rm -f "$file"
	truncate -s "$size" "$file"
	mkfs.ext4 -q -F -L iofleet-vm "$file"
}

vm_boot() {
	local out=$1 scenario=$2 rc
	shift 2
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	rm -f "$out/status" "$out/log"
	{
		echo "export VM_SCENARIO=$(printf '%q' "$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")")"
		echo "export VM_SRC=$(printf '%q' "$VM_SRC")"
		echo "export VM_SYSTEMD=${VM_SYSTEMD:-0}"
		echo "export VM_TIMEOUT=${VM_TIMEOUT:-600}"
		local kv
		for kv in "$@"; do
			echo "export ${kv%%=*}=$(printf '%q' "${kv#*=}")"
		done
	} >"$out/boot.env"
	local drive=()
	if [ -n "${VM_DISK:-}" ]; then
		drive=(-drive "file=$VM_DISK,format=raw,if=virtio,cache=unsafe")
	fi
	# shellcheck disable=SC2046
	timeout --kill-after=10 "${VM_TIMEOUT:-600}" "$VM_QEMU" $(vm_accel) -m "${VM_MEM:-2048}" -smp "${VM_CPUS:-2}" \
		-nodefaults -no-user-config -display none -no-reboot -nic none \
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
		-append "console=ttyS0 loglevel=4 panic=-1 oops=panic nokaslr mitigations=off tsc=reliable iofleet.systemd=${VM_SYSTEMD:-0}" \
		-serial "file:$out/console.txt" \
		-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
		"${drive[@]}" </dev/null >"$out/qemu.txt" 2>&1
	rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "vm: the guest did not finish within ${VM_TIMEOUT:-600}s (killed); console: $out/console.txt" >&2
		return 124
	fi
	if [ ! -s "$out/status" ]; then
		echo "vm: the guest stopped without a status (qemu exit $rc); last console lines:" >&2
		tail -n 25 "$out/console.txt" >&2
		cat "$out/qemu.txt" >&2
		return 125
	fi
	[ "$(cat "$out/status")" = reboot ] && return 0
	return "$(cat "$out/status")"
}

# vm_test NAME: what a ctest guest test (tests/vm/vm-*.sh) starts with: qemu usable (else exit
# 77), the packages from the vm/debs test (VM_DEBS), the kernel and initramfs, a fresh
# directory VM_OUT=IOFLEET_BIN/vm/NAME and a fresh disk VM_DISK in it (/srv, /nfs on ext4).
vm_test() {
	vm_require
	: "${IOFLEET_BIN:?IOFLEET_BIN must name the build directory}"
	VM_DEBS=${IOFLEET_DEBS:-$IOFLEET_BIN/vm/debs}
	ls "$VM_DEBS"/iofleet-agent_*.deb >/dev/null 2>&1 ||
		{ echo "FAIL: no packages in $VM_DEBS (tests/vm/build-debs.sh $VM_DEBS)" >&2; exit 1; }
	vm_prepare "$IOFLEET_BIN/vm/cache" || exit 1
	VM_OUT=$IOFLEET_BIN/vm/$1
	rm -rf "$VM_OUT"
	mkdir -p "$VM_OUT"
	export VM_SYSTEMD=1 VM_DISK=$VM_OUT/disk.img
	vm_disk "$VM_DISK" 3G || exit 1
}
