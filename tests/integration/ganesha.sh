# NFS-Ganesha (VFS FSAL, NFSv3+v4) in user space as a real NFS server for tests; sourced.
#   ganesha_start DIR ADDR NFSPORT MNTPORT [NETNS]: serves DIR/export (created) on ADDR, with its
#     config, log, pid file and recovery under DIR; starts rpcbind (NFSv3 needs it) when none
#     runs in that network namespace; returns once the NFS port accepts connections. Exits 77
#     (skipped) when ganesha.nfsd is missing; returns 1 when it does not come up.
#   ganesha_stop: stops what ganesha_start started (ganesha, and rpcbind when it started one).
#   GANESHA_PID, GANESHA_LOG, GANESHA_EXPORT are set by ganesha_start.

GANESHA_PID=
GANESHA_RPCBIND_PID=
GANESHA_LOG=
GANESHA_EXPORT=
GANESHA_NETNS=

# Runs "$@" in the namespace given to ganesha_start, or here. Not for background jobs: $! would
# be a subshell's; those use _ganesha_bg.
_ganesha_in_ns() {
	if [ -n "$GANESHA_NETNS" ]; then
		ip netns exec "$GANESHA_NETNS" "$@"
	else
		"$@"
	fi
}

# _ganesha_bg LOG CMD...: starts CMD in the background (in the namespace), $! being CMD itself.
_ganesha_bg() {
	local log=$1
	shift
	if [ -n "$GANESHA_NETNS" ]; then
		ip netns exec "$GANESHA_NETNS" "$@" >>"$log" 2>&1 &
	else
		"$@" >>"$log" 2>&1 &
	fi
}

# _ganesha_port_open ADDR PORT: true when a TCP connect succeeds.
_ganesha_port_open() {
	_ganesha_in_ns timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

ganesha_start() {
	local dir=$1 addr=$2 nfsport=$3 mntport=$4 ns=${5:-} bin conf i
	bin=$(command -v ganesha.nfsd || true)
	[ -n "$bin" ] || [ ! -x /usr/bin/ganesha.nfsd ] || bin=/usr/bin/ganesha.nfsd
	if [ -z "$bin" ]; then
		echo "SKIP: ganesha.nfsd is not installed (apt-get install nfs-ganesha nfs-ganesha-vfs)" >&2
		exit 77
	fi
	GANESHA_NETNS=$ns
	dir=$(realpath -m "$dir")
	mkdir -p "$dir/export" "$dir/recovery"
	GANESHA_EXPORT=$dir/export
	GANESHA_LOG=$dir/ganesha.log
	conf=$dir/ganesha.conf
	cat >"$conf" <<EOF
NFS_CORE_PARAM {
	Protocols = 3, 4;
	Bind_addr = $addr;
	NFS_Port = $nfsport;
	MNT_Port = $mntport;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Mount_Path_Pseudo = true;
}
NFSV4 { Graceless = true; RecoveryBackend = fs; RecoveryRoot = $dir/recovery; }
NFS_KRB5 { Active_krb5 = false; }
EXPORT {
	Export_Id = 1;
	Path = $GANESHA_EXPORT;
	Pseudo = /export;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	Protocols = 3, 4;
	Transports = TCP;
	FSAL { Name = VFS; }
}
LOG { Default_Log_Level = EVENT; }
EOF
	# NFSv3 registers with rpcbind (one per network namespace); ganesha exits 2 without it.
	if ! _ganesha_in_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/111' 2>/dev/null; then
		mkdir -p /run/rpcbind
		_ganesha_bg "$dir/rpcbind.log" rpcbind -f
		GANESHA_RPCBIND_PID=$!
		wait_for 10 _ganesha_in_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/111' 2>/dev/null
	fi
	_ganesha_bg "$dir/ganesha.out" "$bin" -F -f "$conf" -L "$GANESHA_LOG" -p "$dir/ganesha.pid"
	GANESHA_PID=$!
	local until_s=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$until_s" ]; do
		if ! kill -0 "$GANESHA_PID" 2>/dev/null; then
			echo "ganesha.nfsd exited at start; log $GANESHA_LOG:" >&2
			tail -n 20 "$GANESHA_LOG" >&2
			GANESHA_PID=
			return 1
		fi
		_ganesha_port_open "$addr" "$nfsport" && return 0
		sleep 0.1
	done
	echo "ganesha.nfsd did not answer on $addr:$nfsport within 30 s; log $GANESHA_LOG" >&2
	return 1
}

ganesha_stop() {
	if [ -n "$GANESHA_PID" ]; then
		kill -TERM "$GANESHA_PID" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$GANESHA_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$GANESHA_PID" 2>/dev/null
		wait "$GANESHA_PID" 2>/dev/null
		GANESHA_PID=
	fi
	if [ -n "$GANESHA_RPCBIND_PID" ]; then
		kill -TERM "$GANESHA_RPCBIND_PID" 2>/dev/null
		wait "$GANESHA_RPCBIND_PID" 2>/dev/null
		GANESHA_RPCBIND_PID=
	fi
	return 0
}
