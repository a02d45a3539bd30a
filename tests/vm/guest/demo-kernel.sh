# Guest side of `scripts/demo.sh --kernel`: the packages installed and a small fleet started by
# systemd (the coordinator and a storage host with kernel nfsd here, two client hosts in network
# namespaces mounting it with the kernel NFS client), then write-up 1's plan scaled down to
# two clients and 10 s, with the cluster's live bandwidth and a line per host each second.
# Environment (from the host): DEBS.
. "$VM_SRC/tests/vm/guest/lib.sh"
mkdir -p /nfs/export1
# The files the write-up read (its job is readonly, as fio's was): there before the session.
for c in c1 c2; do for j in 0 1 2 3; do fallocate -l 64M /nfs/export1/read_throughput.$c.$j.0; done; done
echo "== installing iofleet-coordinator, iofleet-agent and iofleet (dpkg -i) and starting them (systemd)"
fleet_setup "$DEBS" c1 c2 || vm_done
echo 1048576 >/proc/fs/nfsd/max_block_size 2>/dev/null
iofleet agents
sed -e 's/^count = 1/count = 2/' -e 's/^size = 10g/size = 64m/' -e 's/^numjobs = 200/numjobs = 4/' \
	-e 's/^iodepth = 64/iodepth = 4/' -e 's/^runtime = 120/runtime = 10/' \
	"$VM_SRC/examples/wu1-nfs-kernel.plan" >/tmp/wu1-demo.plan
echo "== examples/wu1-nfs-kernel.plan, scaled down to 2 clients x 4 jobs x 10 s (changes below):"
diff "$VM_SRC/examples/wu1-nfs-kernel.plan" /tmp/wu1-demo.plan | grep '^>'
echo "== iofleet run --per-host: nfsd threads=160, /nfs/export1 exported, mounts with nconnect=16"
iofleet run --per-host /tmp/wu1-demo.plan
rc=$?
dir=$(ls -td /var/lib/iofleet-coordinator/runs/*/ | head -n1)
echo "== what each host had (the result's effective settings):"
jq -r '.iofleet.agents[] | "\(.name): " + ([.effective | to_entries[] | select(.key | test("^(export|threads|service|mount_options|restored)$")) | "\(.key)=\(.value)"] | join("  "))' "$dir/result.json"
cp -r "$dir" "$OUT/result"
echo "== nfs.conf and /etc/exports.d afterwards: $(grep -c '^threads' /etc/nfs.conf) threads line(s) in [nfsd]; exports.d $([ -d /etc/exports.d ] && echo present || echo absent); NFS mounts: $(nfs_mounts | wc -l)"
exit $rc
