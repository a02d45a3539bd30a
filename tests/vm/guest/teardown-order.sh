# Part teardown-order of the fleet guest (sourced by kernel-fleet.sh, on its fleet: storage, c1,
# c2, the packaged lease and watchdog): issue 14's findings 1 and 2. At the end of a step the
# clients unmount first and the server is put back after them (docs/plans.md); a client's
# unmount never stops its agent's loop (heartbeats go on, the coordinator never marks it lost);
# and the clients' put-back is in the result. NFSv4.2 against a server found stopped is the case
# that hung: putting the server back first stops nfsd under mounted clients.
part teardown-order
P=/tmp/plans
mkdir -p $P /srv/order
# The packaged lease (5 heartbeats) for this part: a client whose loop blocked in its unmount was
# marked lost (finding 2). The rest of the guest runs fleet_configure's longer one.
fleet_lease 5
systemctl stop nfs-server
BEFORE=$(nfs_state)
cat >$P/order.plan <<'EOP'
[plan]
name = teardown-order

[server]
backend = kernel
path = /srv/order
root_squash = no_root_squash
threads = 16

[client]
count = 2
mount = yes
vers = 4.2
nconnect = 4

[w]
rw = write
bs = 64k
size = 4m
ioengine = psync

[sweep]
server.sync = true, false
EOP
# While the run goes on: the moments the server's export is gone while a client still has
# its mount (the wrong order), sampled every 0.2 s.
( while :; do
	if [ ! -e /etc/exports.d/iofleet.exports ] && [ -n "$(nfs_mounts)" ]; then
		echo "$(cut -d' ' -f1 /proc/uptime) server put back while mounted: $(nfs_mounts | tr '\n' ' ')"
	fi
	sleep 0.2
done ) >"$OUT/order.samples" 2>/dev/null &
sampler=$!
PLAN_LIMIT=400 run_plan order $P/order.plan
rc=$?
kill $sampler 2>/dev/null
wait $sampler 2>/dev/null
check "order: iofleet run exits 0 (got $rc)" test $rc -eq 0
check "order: the server's export stayed until every client had unmounted (finding 1)" \
	test ! -s "$OUT/order.samples"
for i in 0 1; do
	J=$(point_json "$RESULT_DIR" $i)
	cp "$J" "$OUT/order-point$i.json" 2>/dev/null
	jqcheck "order point $i: result ok, no agent lost (finding 2)" "$J" '.iofleet.status == "ok"'
	jqcheck "order point $i: each client's put-back is in the result (finding 2)" "$J" \
		'[.iofleet.agents[] | select(.role == "client") | .effective.restored == "yes"] | (length == 2 and all)'
done
check "order: the coordinator lists every agent idle after the run" wait_for 30 fleet_idle 3
check "order: no umount stuck in the kernel" bash -c '! pgrep -x umount.nfs4 && ! pgrep -x umount'
check "order: nfs-server stopped again, nfs.conf and exports.d as they were" \
	wait_for 60 bash -c '[ "$(nfs_state)" = "$0" ]' "$BEFORE"
no_leftovers order
fleet_lease "${FLEET_LOST_AFTER:-60}"
