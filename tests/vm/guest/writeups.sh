# Part writeups of the fleet guest (sourced by kernel-fleet.sh, on its fleet): write-ups 1, 3 and
# 5 of WORKLOADS.md as their kernel plans (examples/wu1-nfs-kernel.plan, wu3-nas-nfs.plan,
# wu5-sync-async-kernel.plan), run for real on the fleet systemd started from the installed
# packages: every key of the plans as written, only sizes, runtimes and file counts scaled down
# (TCG is slow). `iofleet report` over each; the host put back after each.
part writeups
E=$VM_SRC/examples
P=/tmp/plans
mkdir -p $P /nfs/export1 /srv/nas /srv/nfs

# nfsd with 1 MiB blocks (kernel-fleet.sh set it) runs, as on a storage host: the agent restarts
# it for threads and versions and restarts it again to put it back.
systemctl start nfs-server
NFS_BEFORE=$(nfs_state)
note "nfs state before: $(echo "$NFS_BEFORE" | tr '\n' ' ')"
# One more client, a0, on this host's own network namespace (net.core.rmem_max, which write-up
# 5 sweeps, is not per network namespace in this kernel: only a client in the first namespace
# has it). Plans that take one client get a0 (name order).
mkdir -p /run/netns
touch /run/netns/a0
mount --bind /proc/1/ns/net /run/netns/a0
fleet_add_client a0 4

# An agent without the coordinator's public key (a fresh agent host before it was copied):
# one clear error, exit 78, and systemd does not restart it in a loop.
mv /etc/iofleet/coordinator.pub /etc/iofleet/coordinator.pub.away
systemctl restart iofleet-agent
# Read after the restart: a start by hand flushes the counter (the storage agent was restarted
# by systemd in part kernel-fleet).
n=$(systemctl show -P NRestarts iofleet-agent)
check "no coordinator key: the agent exits 78 (EX_CONFIG)" \
	wait_for 30 bash -c '[ "$(systemctl show -P ExecMainStatus iofleet-agent)" = 78 ] && ! systemctl is-active -q iofleet-agent'
sleep 8
check "no coordinator key: systemd did not restart it (RestartPreventExitStatus=78)" \
	test "$(systemctl show -P NRestarts iofleet-agent)" = "$n"
check "no coordinator key: the journal says which key" \
	bash -c "journalctl -u iofleet-agent -n 20 --no-pager | grep -q 'coordinator key: .*coordinator.pub'"
mv /etc/iofleet/coordinator.pub.away /etc/iofleet/coordinator.pub
systemctl restart iofleet-agent
check "the agent is back with its key" wait_for 60 fleet_idle 4

# scaled PLAN OUT SED...: a copy of the plan with the given sed expressions applied; checks
# that nothing else changed (the keys of the write-up stay as written).
scaled() {
	local plan=$1 out=$2
	shift 2
	local args=() e
	for e in "$@"; do args+=(-e "$e"); done
	sed "${args[@]}" "$plan" >"$out"
	echo "--- $(basename "$plan") as run here: $(grep -E '^(size|numjobs|iodepth|runtime|startdelay|nrfiles|count) ' "$out" | tr '\n' ' ')"
	local other
	other=$(diff "$plan" "$out" | grep '^[<>]' | grep -vE '^[<>] (size|numjobs|iodepth|runtime|startdelay|nrfiles) = ')
	check "$(basename "$plan"): the scaled copy differs only in sizes, times and counts" test -z "$other"
}

# report NAME DIR POINTS: iofleet report over the results, a row per point, every point ok.
report() {
	local name=$1 dir=$2 points=$3
	if iofleet report --format=csv --no-plots --output="$OUT/$name.csv" "$dir" >"$OUT/$name.report.log" 2>&1; then
		ok "$name: iofleet report exits 0"
	else
		fail "$name: iofleet report failed: $(cat "$OUT/$name.report.log")"
	fi
	iofleet report --no-plots "$dir" >"$OUT/$name.report.txt" 2>&1
	cat "$OUT/$name.report.txt"
	check "$name: the table has a row per point ($points)" test "$(($(wc -l <"$OUT/$name.csv") - 1))" -eq "$points"
	check "$name: every point ran ok" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if rows and all(r["runs"] == r["runs_ok"] and r["error"] == "" for r in rows) else 1)' "$OUT/$name.csv"
	iofleet report --plots="$OUT/$name-plots" "$dir" >/dev/null 2>&1
	check "$name: SVG plots drawn" bash -c "ls $OUT/$name-plots/*.svg >/dev/null 2>&1"
}

put_back() {
	check "$1: nfs.conf, exports.d and nfs-server as they were" wait_for 30 bash -c '[ "$(nfs_state)" = "$0" ]' "$NFS_BEFORE"
	no_leftovers "$1"
}

# What the write-ups' hosts had before the session: the files write-up 1 reads (readonly: fio
# and iofleet refuse to create them) and the directory bonnie++ ran in on write-ups 3 and 5's
# exports (directory=bonnie: iofleet does not create a job's directory).
for j in 0 1 2 3; do head -c 32M /dev/zero >/nfs/export1/read_throughput.a0.$j.0; done
mkdir -p /srv/nas/bonnie /srv/nfs/bonnie

# --- write-up 1: threads=160, /nfs/export1 rw,no_root_squash, nconnect=16, fio's 1 MiB read --
note "wu1"
scaled "$E/wu1-nfs-kernel.plan" $P/wu1.plan 's/^size = 10g/size = 32m/' 's/^numjobs = 200/numjobs = 4/' \
	's/^iodepth = 64/iodepth = 4/' 's/^runtime = 120/runtime = 4/'
if run_plan wu1 $P/wu1.plan; then ok "wu1: iofleet run exits 0"; else fail "wu1: iofleet run failed"; tail -n 20 "$OUT/wu1.log"; fi
J=$RESULT_DIR/result.json
cp "$J" "$OUT/wu1.json" 2>/dev/null
jqcheck "wu1: the server ran 160 nfsd threads" "$J" '[.iofleet.agents[] | select(.name == "storage") | .effective.threads == "160"] | all and length == 1'
jqcheck "wu1: exportfs shows /nfs/export1 rw,no_root_squash (and sync,wdelay as the write-up saw)" "$J" \
	'[.iofleet.agents[] | select(.name == "storage") | .effective.export | test("^/nfs/export1 ") and test("[(,]rw[,)]") and test("[(,]sync[,)]") and test("[(,]wdelay[,)]") and test("[(,]no_root_squash[,)]")] | all and length == 1'
jqcheck "wu1: the client mounted with nconnect=16 (negotiated vers=4.2, rsize=wsize=1 MiB)" "$J" \
	'[.iofleet.agents[] | select(.role == "client") | .effective.mount_options | test("nconnect=16") and test("vers=4.2") and test("rsize=1048576")] | all and length == 1'
jqcheck "wu1: the client read through the mount" "$J" '.client_stats[-1].read.io_bytes > 0'
report wu1 "$RESULT_DIR" 1
put_back wu1

# --- write-up 3: NFS v3 vs v4 x rsize/wsize, bonnie++'s block write, block read, files -------
note "wu3"
scaled "$E/wu3-nas-nfs.plan" $P/wu3.plan 's/^size = 2g/size = 8m/' 's/^runtime = 60/runtime = 2/' \
	's/^startdelay = 60/startdelay = 3/' 's/^startdelay = 120/startdelay = 6/' 's/^nrfiles = 16384/nrfiles = 64/'
if run_plan wu3 $P/wu3.plan; then ok "wu3: iofleet run exits 0"; else fail "wu3: iofleet run failed"; tail -n 20 "$OUT/wu3.log"; fi
report wu3 "$RESULT_DIR" 4
check "wu3: block write, block read and the file test at every point" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = lambda s: float(s) if s else 0
sys.exit(0 if len(rows) == 4 and all(n(r["read_mib_s_median"]) > 0 and n(r["write_mib_s_median"]) > 0 and n(r["create_files_s_median"]) > 0 for r in rows) else 1)' "$OUT/wu3.csv"
n=0
for i in 0 1 2 3; do
	J=$(point_json "$RESULT_DIR" $i)
	v=$(jq -r ".points[] | select(.index == $i) | .params[\"client.vers\"]" "$RESULT_DIR/sweep.json")
	o=$(jq -r ".points[] | select(.index == $i) | .params[\"client.options\"]" "$RESULT_DIR/sweep.json")
	mo=$(jq -r '[.iofleet.agents[] | select(.role == "client")][0].effective.mount_options' "$J")
	want="vers=$v"
	[ "$v" = 4 ] && want="vers=4"
	if [[ $mo == *"$want"* ]] && { [ "$o" = defaults ] || [[ $mo == *rsize=32768* && $mo == *wsize=32768* ]]; }; then
		n=$((n + 1))
	else
		echo "wu3 point $i: vers=$v options=$o: mounted $mo"
	fi
done
check "wu3: each point's mount is the version and rsize/wsize it asked ($n of 4)" test $n -eq 4
put_back wu3

# --- write-up 5: sync vs async x mount options x client rmem_max ------------------------------
note "wu5"
scaled "$E/wu5-sync-async-kernel.plan" $P/wu5.plan 's/^size = 4g/size = 8m/' 's/^runtime = 60/runtime = 1/' \
	's/^startdelay = 60/startdelay = 1/' 's/^startdelay = 120/startdelay = 2/' 's/^nrfiles = 16384/nrfiles = 32/'
PLAN_LIMIT=1500 run_plan wu5 $P/wu5.plan
rc=$?
check "wu5: iofleet run exits 0 (got $rc)" test $rc -eq 0
report wu5 "$RESULT_DIR" 16
n=0
for i in $(seq 0 15); do
	J=$(point_json "$RESULT_DIR" $i)
	s=$(jq -r ".points[] | select(.index == $i) | .params[\"server.sync\"]" "$RESULT_DIR/sweep.json")
	want=$([ "$s" = true ] && echo sync || echo async)
	jq -e --arg w "[(,]$want[,)]" '[.iofleet.agents[] | select(.name == "storage") | .effective.export | test($w)] | all and length == 1' "$J" >/dev/null && n=$((n + 1))
done
check "wu5: each point's export was sync or async as asked ($n of 16)" test $n -eq 16
put_back wu5
# a0 leaves the fleet: its namespace is this boot's only (the reset's next boot has none).
systemctl disable --now iofleet-client@a0 2>/dev/null
