# Hosts for plan tests against a real NFS server, each a network namespace; sourced after lib.sh.
#   nfs_hosts_up [NCLIENTS]: a coordinator namespace with a bridge (10.203.0.1, coordinator on
#     port 17470), a storage namespace (10.203.0.2) running rpcbind and NFS-Ganesha with no export
#     and an agent "srv" (nfs_backend=ganesha, which starts ganesha itself through
#     ganesha_start/ganesha_pidfile), and NCLIENTS (default 2) client namespaces 10.203.0.3...
#     with agents c1, c2, ...; returns once every agent is idle. Exits 77 (skipped) where
#     namespaces, bridges, veth, rpcbind or ganesha are not available here.
#   Sets: C (coordinator namespace), S (storage), CLIENT_NS (array, one per client; A1, A2 for
#     the first two), SRV (the server's address), G (ganesha's directory: ganesha.conf, .pid,
#     .log), GANESHA_CONF_ORIG (a copy of ganesha.conf as it was before any plan), GSTART (the
#     command that starts ganesha), SERVER_ARGS (the storage agent's arguments), SRV_PID, CTL,
#     EXPORT (an export directory inside the agents' allow_paths), NFS_PORT, MNT_PORT.
#   stop_ganesha: stops ganesha by its pid file (installed with cleanup as the EXIT trap).
#   in_clients CMD...: runs CMD in every client namespace, one output line per client.

nfs_hosts_up() {
	local nclients=${1:-2} suffix=$$ i n
	[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
	command -v ganesha.nfsd >/dev/null || skip "ganesha.nfsd is not installed (apt-get install nfs-ganesha nfs-ganesha-vfs)"
	command -v rpcbind >/dev/null || skip "rpcbind is not installed"
	C=iogc$suffix S=iogs$suffix
	CLIENT_NS=()
	for ((i = 1; i <= nclients; i++)); do CLIENT_NS+=("iog$i-$suffix"); done
	A1=${CLIENT_NS[0]:-} A2=${CLIENT_NS[1]:-}
	ip netns add "$C" 2>/dev/null || skip "ip netns add is not permitted here"
	NETNS+=("$C")
	for n in "$S" "${CLIENT_NS[@]}"; do ip netns add "$n" && NETNS+=("$n"); done
	[ -n "${T:-}" ] || scratch

	# One layer-2 segment: a bridge in the coordinator's namespace, a veth to each host.
	ip -n "$C" link add br0 type bridge || skip "bridges cannot be made here"
	ip -n "$C" link set br0 up
	ip -n "$C" link set lo up
	ip -n "$C" addr add 10.203.0.1/24 dev br0
	i=2
	for n in "$S" "${CLIENT_NS[@]}"; do
		ip link add "h$i$suffix" type veth peer name "b$i$suffix" || skip "veth links cannot be made here"
		ip link set "h$i$suffix" netns "$n"
		ip link set "b$i$suffix" netns "$C"
		ip -n "$C" link set "b$i$suffix" master br0
		ip -n "$C" link set "b$i$suffix" up
		ip -n "$n" addr add "10.203.0.$i/24" dev "h$i$suffix"
		ip -n "$n" link set "h$i$suffix" up
		ip -n "$n" link set lo up
		i=$((i + 1))
	done
	SRV=10.203.0.2

	# The storage host: rpcbind (NFSv3), a ganesha config with no export yet, ganesha running.
	G=$T/ganesha
	mkdir -p "$G/recovery" "$T/export" /run/rpcbind
	cat >"$G/ganesha.conf" <<EOF
# ganesha on the storage host; iofleet adds its export with an include line and takes it away
NFS_CORE_PARAM { Protocols = 3, 4; Bind_addr = $SRV; NFS_Port = 2049; MNT_Port = 20048;
	Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = false; }
NFSV4 { Graceless = true; RecoveryBackend = fs; RecoveryRoot = $G/recovery; }
NFS_KRB5 { Active_krb5 = false; }
LOG { Default_Log_Level = EVENT; }
EOF
	GANESHA_CONF_ORIG=$T/ganesha.conf.orig
	cp "$G/ganesha.conf" "$GANESHA_CONF_ORIG"
	ip netns exec "$S" rpcbind -f >"$T/rpcbind.log" 2>&1 &
	PIDS+=($!)
	wait_for 5 ip netns exec "$S" bash -c 'exec 3<>/dev/tcp/127.0.0.1/111' 2>/dev/null
	GSTART="$(command -v ganesha.nfsd) -f $G/ganesha.conf -L $G/ganesha.log -p $G/ganesha.pid"
	ip netns exec "$S" $GSTART
	wait_for 10 pid_file_alive "$G/ganesha.pid"
	kill -0 "$(cat "$G/ganesha.pid" 2>/dev/null)" 2>/dev/null || { cat "$G/ganesha.log" >&2; skip "ganesha does not start in a namespace here"; }
	trap 'stop_ganesha; cleanup' EXIT

	keys coordinator srv
	allow srv
	for ((i = 1; i <= nclients; i++)); do
		keys "c$i"
		allow "c$i"
	done
	NS=$C AGENT_EP=tcp://*:17470 start_coordinator
	SERVER_ARGS=(--roles=storage --nfs-backend=ganesha --nfs-address=$SRV --ganesha-conf="$G/ganesha.conf"
		--ganesha-export-file="$G/iofleet-export.conf" --ganesha-start="$GSTART"
		--ganesha-pidfile="$G/ganesha.pid" --ganesha-port=2049)
	NS=$S AGENT_COORD=tcp://10.203.0.1:17470 start_agent srv "${SERVER_ARGS[@]}"
	SRV_PID=$LAST_PID
	for ((i = 1; i <= nclients; i++)); do
		NS=${CLIENT_NS[$((i - 1))]} AGENT_COORD=tcp://10.203.0.1:17470 start_agent "c$i"
	done
	wait_agents $((nclients + 1))
	EXPORT=$T/export NFS_PORT=2049 MNT_PORT=20048
	export EXPORT NFS_PORT MNT_PORT
}

stop_ganesha() {
	local p
	p=$(cat "$G/ganesha.pid" 2>/dev/null) || return 0
	kill -TERM "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
}

in_clients() {
	local n
	for n in "${CLIENT_NS[@]}"; do
		ip netns exec "$n" "$@"
	done
}
