#!/usr/bin/env bash
# End to end with a real NFS server: one storage host running NFS-Ganesha (started, configured
# and put back by its agent) and two client hosts, each a network namespace, run
# examples/wu1-ganesha.plan: a synchronized nfs-engine read on both clients. The result shows
# both clients' bandwidth, their sum and the server's effective export; afterwards ganesha's
# config is byte-identical and ganesha runs as before. Then the same after kill -9 of the agent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nfs-hosts.sh"
nfs_hosts_up 2
timeout 60 "$IOFLEET" run --coordinator="$CTL" "$IOFLEET_SRC/examples/wu1-ganesha.plan" --output-format=json \
	--output="$T/out.json" >"$T/run.log" 2>&1
rc=$?
cat "$T/run.log"
check "the plan runs and exits 0" [ $rc -eq 0 ]
J=$T/out.json
jqcheck "both clients read through NFS" "$J" \
	'[.client_stats[] | select(.jobname != "All clients") | .read.io_bytes > 0] | (length == 2 and all)'
jqcheck "All clients is their sum" "$J" \
	'.client_stats[-1].read.io_bytes == ([.client_stats[:-1][].read.io_bytes] | add)'
jqcheck "the clients are c1 and c2" "$J" '[.client_stats[:-1][].agent] | sort == ["c1", "c2"]'
jqcheck "the server is in the result with its role" "$J" \
	'[.iofleet.agents[] | select(.name == "srv") | .role] == ["server"]'
jqcheck "the server's effective export is reported" "$J" \
	'.iofleet.agents[] | select(.name == "srv") | .effective.export | test("Path = .*export") and test("MaxRead = 1048576")'
jqcheck "the server says it put everything back" "$J" \
	'.iofleet.agents[] | select(.name == "srv") | .effective.restored == "yes"'
jqcheck "every interval has both clients" "$J" \
	'[.iofleet.intervals[:-1][] | (.agents | length) == 2] | all'
check "ganesha.conf is byte-identical afterwards" cmp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"
check "the export file iofleet wrote is gone" test ! -e "$G/iofleet-export.conf"
check "ganesha runs again afterwards" kill -0 "$(cat "$G/ganesha.pid")"
check "no restore record is left" test -z "$(ls -A "$T/state-srv/restore" 2>/dev/null | grep -v '^\.')"

# The order of the put-back (issue 14, finding 1): every client puts its host back (here a
# sysctl of its namespace) and says so before the server is told to put its export back; the
# clients' outcome is in the result. Meanwhile the plan holds its clients: another run cannot
# take them while the server is configured.
cat >"$T/order.plan" <<EOF
[plan]
name = order
interval = 500ms
[server]
backend = ganesha
path = $T/export
access = rw
root_squash = no_root_squash
[client]
count = 2
mount = no
port = $NFS_PORT
mountport = $MNT_PORT
sysctl.net.ipv4.tcp_rmem = 4096 65536 1048576
[j]
ioengine = nfs
rw = read
bs = 64k
size = 4m
time_based
runtime = 4
EOF
rmem_before=$(in_clients cat /proc/sys/net/ipv4/tcp_rmem)
"$IOFLEET" run --coordinator="$CTL" "$T/order.plan" --output-format=json --output="$T/order.json" \
	>"$T/order.log" 2>&1 &
RUN=$!
wait_line "$T/order.log" "started on" 60 || fail "the order plan did not start"
RID=$(sed -n 's/^iofleet: run \([^ ]*\) accepted.*/\1/p' "$T/order.log")
out=$("$IOFLEET" run --coordinator="$CTL" --agents=name=c1 --ioengine=null --rw=read --name=x --size=1m 2>&1)
check "a plan's client cannot be taken by another run meanwhile" grep -q "busy: agent c1 is in run $RID" <<<"$out"
wait "$RUN"
check "the order plan exits 0" [ $? -eq 0 ]
# Both plans start their two clients together: 5 ms, 20 ms under a sanitizer on a loaded host
# (CI runs two tests at once; 5.9 ms was seen), judged on the better of the two starts, as a
# stall can hold one client back once.
skew_max=5000000
grep -q libasan <<<"$(ldd "$IOFLEET" 2>/dev/null)" && skew_max=20000000
skews=$(jq -s -c 'map(.iofleet.start_skew_ns // 1e18)' "$J" "$T/order.json" 2>/dev/null)
check "the clients started together (skew < $((skew_max / 1000000)) ms, the better of $skews ns)" \
	jq -e -n --argjson s "${skews:-[]}" "\$s | length == 2 and min < $skew_max"
jqcheck "each client's put-back is in the result" "$T/order.json" \
	'[.iofleet.agents[] | select(.role == "client") | .effective.restored] == ["yes", "yes"]'
jqcheck "... as the server's" "$T/order.json" '[.iofleet.agents[] | select(.role == "server") | .effective.restored] == ["yes"]'
check "the clients' sysctls are back" [ "$(in_clients cat /proc/sys/net/ipv4/tcp_rmem)" = "$rmem_before" ]
last_client=$(grep -h "run $RID: host put back" "$T/c1.log" "$T/c2.log" | cut -d' ' -f1 | sort | tail -n1)
server_back=$(grep -h "host configuration put back" "$T/srv.log" | cut -d' ' -f1 | tail -n1)
check "the server was put back ($server_back) after the last client ($last_client)" \
	[ -n "$last_client" ] && [ -n "$server_back" ] && [[ ! "$server_back" < "$last_client" ]]
check "ganesha.conf is byte-identical after it" cmp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"

# A plan the server's backend cannot do: refused by name, nothing changed.
cat >"$T/bad.plan" <<EOF
[server]
backend = ganesha
path = $T/export
sync = true
[client]
count = 2
mount = no
[j]
ioengine = nfs
rw = read
size = 1m
EOF
"$IOFLEET" run --coordinator="$CTL" "$T/bad.plan" >"$T/bad.log" 2>&1
check "a setting ganesha does not have is refused before anything runs" [ $? -eq 2 ]
check "... and the error names the backend" grep -q "ganesha has no sync/async" "$T/bad.log"

# An export outside the server's allow_paths is refused by the agent.
sed -e "s#^path = .*#path = /var/lib#" -e '/^sync/d' "$T/bad.plan" >"$T/outside.plan"
"$IOFLEET" run --coordinator="$CTL" "$T/outside.plan" >"$T/outside.log" 2>&1
check "an export outside allow_paths fails the run" [ $? -ne 0 ]
check "... saying why" grep -q "outside allow_paths" "$T/outside.log"
check "... and ganesha.conf is untouched" cmp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"

# kill -9 of the server's agent while it serves: its next start puts everything back.
cat >"$T/long.plan" <<EOF
[server]
backend = ganesha
path = $T/export
[client]
count = 2
mount = no
port = 2049
mountport = 20048
[j]
ioengine = nfs
rw = read
bs = 64k
size = 8m
time_based
runtime = 8
EOF
"$IOFLEET" run --coordinator="$CTL" "$T/long.plan" >"$T/long.log" 2>&1 &
RUN_PID=$!
wait_line "$G/ganesha.conf" "^%include" 10
check "during the run ganesha.conf includes iofleet's export" grep -q "^%include" "$G/ganesha.conf"
kill -KILL "$SRV_PID"
wait "$SRV_PID" 2>/dev/null
forget "$SRV_PID"
check "ganesha.conf still holds the change while the agent is dead" grep -q "^%include" "$G/ganesha.conf"
NS=$S AGENT_COORD=tcp://10.203.0.1:17470 start_agent srv "${SERVER_ARGS[@]}"
wait_for 10 cmp -s "$G/ganesha.conf" "$GANESHA_CONF_ORIG"
check "the restarted agent put ganesha.conf back byte for byte" cmp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"
check "... and removed the export file" test ! -e "$G/iofleet-export.conf"
wait_for 10 pid_file_alive "$G/ganesha.pid"
check "... and ganesha runs with it" kill -0 "$(cat "$G/ganesha.pid")"
check "the agent logged the replay" grep -q "previous run of this agent left changes" "$T/srv.log"
wait_exit "$RUN_PID" 60 >/dev/null
check "the run with a killed server ends (status $?), not hangs" [ $? -ne 124 ]
finish
