#!/usr/bin/env bash
# The examples that run against NFS-Ganesha, shortened, on hosts in network namespaces (a storage
# host whose agent configures ganesha, two client hosts on libnfs): wu1-ganesha, wu3-ganesha
# (MaxRead/MaxWrite sweep, block write/read through NFS and the file test on a local directory)
# and wu5-ganesha (nfs_commit x client tcp_rmem x clients, 12 points). Each is checked through
# `iofleet report --format=csv` (a row per point, all ok, the swept parameters as columns) and
# through the point results (what the server exported, the sysctls the clients applied); after
# each, ganesha.conf is byte-identical, ganesha runs, and the client sysctls are back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfs-hosts.sh"
. "$(dirname "$0")/examples.sh"
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
nfs_hosts_up 2
E=$IOFLEET_SRC/examples

# The client settings a plan may change, as the client hosts have them before any plan.
client_sysctls() {
	in_clients cat /proc/sys/net/ipv4/tcp_rmem /proc/sys/net/ipv4/tcp_wmem
}
# Start from values no example uses, so a restore to "the default" cannot pass by chance.
in_clients sh -c 'echo "4096 98304 2097152" >/proc/sys/net/ipv4/tcp_rmem'
SYSCTLS_BEFORE=$(client_sysctls)
check "the client hosts have their own tcp_rmem (set in their namespaces)" \
	[ "$(in_clients cat /proc/sys/net/ipv4/tcp_rmem | sort -u)" = "$(printf '4096\t98304\t2097152')" ]

# put_back NAME: what every example must leave behind.
put_back() {
	check "$1: ganesha.conf is byte-identical afterwards" cmp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"
	check "$1: the export file iofleet wrote is gone" test ! -e "$G/iofleet-export.conf"
	check "$1: ganesha runs afterwards" kill -0 "$(cat "$G/ganesha.pid" 2>/dev/null)"
	check "$1: the client sysctls are back to their values" [ "$(client_sysctls)" = "$SYSCTLS_BEFORE" ]
	check "$1: no restore record is left on any host" \
		test -z "$(ls -A "$T"/state-*/restore 2>/dev/null | grep -v '^\.\|^$\|:$')"
}

# point_json DIR INDEX: the result.json of a point (its first repeat).
point_json() {
	printf '%s/%s/result.json' "$1" "$(jq -r ".points[] | select(.index == $2 and .repeat == 0) | .dir" "$1/sweep.json")"
}

export RUNTIME=1 FILES_START=2 MDDIR=$T/data/files
mkdir -p "$MDDIR"
dry_run_example "$E/wu1-ganesha.plan" 1
dry_run_example "$E/wu3-ganesha.plan" 4
dry_run_example "$E/wu5-ganesha.plan" 12

# --- write-up 1: one run, two clients -----------------------------------------------------
run_example wu1 "$E/wu1-ganesha.plan"
report_example wu1 "$RESULT_DIR" 1 "$E/wu1-ganesha.plan"
check "wu1: both clients read" jq -e \
	'[.client_stats[:-1][] | .read.io_bytes > 0] | (length == 2 and all)' "$RESULT_DIR/result.json"
check "wu1: the table's read MiB/s is the run's" csvq "$T/wu1.csv" \
	"abs(num(rows[0]['read_mib_s_median']) - $(jq '.client_stats[-1].read.bw_bytes' "$RESULT_DIR/result.json") / 1048576) < 0.01"
put_back wu1

# --- write-up 3: MaxRead x MaxWrite; block write, block read, files -----------------------------
run_example wu3 "$E/wu3-ganesha.plan"
report_example wu3 "$RESULT_DIR" 4 "$E/wu3-ganesha.plan"
C=$T/wu3.csv
check "wu3: block write and block read through NFS at every point" csvq "$C" \
	'all(num(r["read_mib_s_median"]) > 0 and num(r["write_mib_s_median"]) > 0 for r in rows)'
check "wu3: files created, stat'ed and deleted per second next to them" csvq "$C" \
	'all(num(r["create_files_s_median"]) > 0 and num(r["stat_files_s_median"]) > 0 and num(r["delete_files_s_median"]) > 0 for r in rows)'
bytes() { case $1 in 32k) echo 32768 ;; 1m) echo 1048576 ;; *) echo "?" ;; esac; }
n=0
for i in 0 1 2 3; do
	J=$(point_json "$RESULT_DIR" "$i")
	mr=$(jq -r ".points[] | select(.index == $i) | .params[\"server.max_read\"]" "$RESULT_DIR/sweep.json")
	mw=$(jq -r ".points[] | select(.index == $i) | .params[\"server.max_write\"]" "$RESULT_DIR/sweep.json")
	jq -e --arg r "MaxRead = $(bytes "$mr");" --arg w "MaxWrite = $(bytes "$mw");" \
		'.iofleet.agents[] | select(.name == "srv") | .effective.export | contains($r) and contains($w)' \
		"$J" >/dev/null && n=$((n + 1))
done
check "wu3: each point's server exported its MaxRead/MaxWrite ($n of 4)" [ "$n" -eq 4 ]
check "wu3: the file test ran in MDDIR and left it empty" test -z "$(ls -A "$MDDIR")"
put_back wu3

# --- write-up 5: nfs_commit x client tcp_rmem x clients ----------------------------------------
run_example wu5 "$E/wu5-ganesha.plan"
report_example wu5 "$RESULT_DIR" 12 "$E/wu5-ganesha.plan"
C=$T/wu5.csv
check "wu5: per-client MiB/s and efficiency against linear, as clients varies" csvq "$C" \
	'"per_client_mib_s" in head and "efficiency_pct" in head and all(num(r["per_client_mib_s"]) > 0 for r in rows)'
check "wu5: writes and reads at every point" csvq "$C" \
	'all(num(r["read_mib_s_median"]) > 0 and num(r["write_mib_s_median"]) > 0 for r in rows)'
n=0
for i in $(seq 0 11); do
	J=$(point_json "$RESULT_DIR" "$i")
	P=$(jq -c ".points[] | select(.index == $i) | .params" "$RESULT_DIR/sweep.json")
	# The clients of the point applied its tcp_rmem (read back, tabs as the kernel writes them);
	# the server exported its NFS_Commit; as many clients ran as the point says.
	jq -e --argjson p "$P" '
		([.iofleet.agents[] | select(.role == "client")] | length == ($p.clients | tonumber) and
		 all(.effective["net.ipv4.tcp_rmem"] | gsub("\t"; " ") == $p["client.sysctl.net.ipv4.tcp_rmem"])) and
		(.iofleet.agents[] | select(.name == "srv") | .effective.export |
		 test("NFS_Commit = " + $p["server.nfs_commit"]; "i")) and
		([.client_stats[:-1][] | .agent] | unique | length == ($p.clients | tonumber))' "$J" >/dev/null &&
		n=$((n + 1))
done
check "wu5: each point ran on its clients, with its sysctl and its export applied ($n of 12)" [ "$n" -eq 12 ]
# The issue's "done when": the write-up 5 matrix's table and its plots, drawn.
"$IOFLEET" report "$RESULT_DIR" >"$T/wu5.table" 2>&1
check "wu5: iofleet report prints the table" grep -q "nfs_commit" "$T/wu5.table"
for svg in bars.svg scaling.svg; do
	check "wu5: plots/$svg is drawn and well-formed" xmllint --noout "$RESULT_DIR/plots/$svg"
done
check "wu5: a bandwidth-over-time plot per step (12)" [ "$(ls "$RESULT_DIR"/plots/timeline-*.svg | wc -l)" -eq 12 ]
put_back wu5

finish
