#!/usr/bin/env bash
# Issue 9, keys and sockets: a secret key its group or others may read is refused by the
# coordinator and the agent, naming the file and the chmod that fixes it; keygen writes keys
# private; systemd's LoadCredential= copy (0400 plus an ACL entry for the service's user) is
# accepted. A user who may not use the control socket is told so, with its group, instead of
# waiting for an answer. Run as root, with the unprivileged user nobody.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to act as another user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
id nobody >/dev/null 2>&1 || skip "no user nobody"
NOGROUP=$(id -gn nobody)
as_nobody() {
	setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups "$@"
}
# acl_read FILE UID: an access ACL letting user UID read FILE (what LoadCredential= writes).
acl_read() {
	python3 - "$1" "$2" <<'EOF'
import os, struct, sys
e = [(1, 4, 0), (2, 4, int(sys.argv[2])), (4, 0, 0), (16, 4, 0), (32, 0, 0)]
os.setxattr(sys.argv[1], "system.posix_acl_access",
            struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e))
EOF
}
scratch
chmod 0711 "$T"
keys coordinator a0
allow a0
check "keygen writes the key pair 0600" [ "$(stat -c %a "$T/a0.key")" = 600 ]
check "keygen writes the public key 0644" [ "$(stat -c %a "$T/a0.pub")" = 644 ]

# A readable secret key: one line, the file, the fix; the daemon does not start.
chmod 0644 "$T/coordinator.key"
out=$(timeout 10 "$COORD" --key="$T/coordinator.key" --agent-keys-dir="$T/agents.d" --state-dir="$T/cs" \
	--control-endpoint="ipc://$T/x.sock" --agent-endpoint=tcp://127.0.0.1:0 --metrics-listen=off 2>&1)
rc=$?
echo "$out"
check "the coordinator refuses a 0644 secret key" [ $rc -ne 0 ]
check "... naming the file and the chmod that fixes it" grep -q "coordinator.key: readable or writable by others (mode 0644).*chmod 600 $T/coordinator.key" <<<"$out"
check "... in one line" [ "$(wc -l <<<"$out")" -eq 1 ]
chmod 0600 "$T/coordinator.key"
chmod 0640 "$T/a0.key"
out=$(timeout 10 "$AGENT" --coordinator=tcp://127.0.0.1:1 --coordinator-key="$T/coordinator.pub" \
	--key="$T/a0.key" --state-dir="$T/sa" 2>&1)
rc=$?
echo "$out"
check "the agent refuses a 0640 secret key" [ $rc -ne 0 ]
check "... naming the file and the chmod that fixes it" grep -q "a0.key: readable or writable by its group (mode 0640).*chmod 600 $T/a0.key" <<<"$out"
chmod 0600 "$T/a0.key"

# The same for an unprivileged user, on its own key; and LoadCredential='s copy of the key,
# root's file with mode 0400 and an ACL letting the service's user read it, is accepted.
mkdir -p "$T/nobody/agents.d" "$T/cred"
cp "$T/coordinator.key" "$T/nobody/own.key"
chown -R nobody "$T/nobody"
chmod 0644 "$T/nobody/own.key"
out=$(timeout 10 setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups "$COORD" --key="$T/nobody/own.key" --agent-keys-dir="$T/nobody/agents.d" \
	--state-dir="$T/nobody/state" --control-endpoint="ipc://$T/nobody/c.sock" \
	--agent-endpoint=tcp://127.0.0.1:0 --metrics-listen=off 2>&1)
check "as nobody, a 0644 key of its own is refused" grep -q "own.key: .*chmod 600" <<<"$out"
cp "$T/coordinator.key" "$T/cred/coordinator.key"
chmod 0400 "$T/cred/coordinator.key"
if acl_read "$T/cred/coordinator.key" "$(id -u nobody)" 2>/dev/null; then
	check "the credential looks group-readable to stat (the ACL mask)" \
		[ "$(stat -c %a "$T/cred/coordinator.key")" = 440 ]
	# setpriv execs the coordinator: $! is the coordinator.
	setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups "$COORD" \
		--key="$T/cred/coordinator.key" --agent-keys-dir="$T/nobody/agents.d" \
		--state-dir="$T/nobody/state" --control-endpoint="ipc://$T/nobody/c.sock" \
		--agent-endpoint=tcp://127.0.0.1:0 --metrics-listen=off >"$T/nobody-coord.log" 2>&1 &
	NC=$!
	PIDS+=($NC)
	ready_or_gone() { grep -q "ready" "$T/nobody-coord.log" || ! kill -0 $NC 2>/dev/null; }
	wait_for 20 ready_or_gone
	check "a LoadCredential=-style key (0400, ACL for the service's user) is accepted" grep -q "ready" "$T/nobody-coord.log"
	kill -TERM $NC 2>/dev/null
	wait_exit $NC
	check "... and that coordinator stops on SIGTERM" [ $? -eq 0 ]
	acl_read "$T/cred/coordinator.key" 4242
	out=$(timeout 10 "$COORD" --key="$T/cred/coordinator.key" --metrics-listen=off \
		--control-endpoint="ipc://$T/y.sock" --state-dir="$T/cs2" 2>&1)
	check "an ACL letting another user read the key is refused" grep -q "its ACL lets user 4242 read or write it.*setfacl -b" <<<"$out"
else
	echo "SKIP: no ACLs on $T: the LoadCredential= case is covered by unit/test-keys where they work"
fi

# The control socket: 0660, root's group. nobody is told it lacks permission, and which group
# has it; in that group, it gets its answer.
mkdir -p "$T/pub"
chmod 0755 "$T/pub"
start_coordinator --control-endpoint="ipc://$T/pub/control.sock"
CTL=ipc://$T/pub/control.sock
start_agent a0
wait_agents 1
group=$(stat -c %G "$T/pub/control.sock")
out=$(as_nobody "$IOFLEET" agents --coordinator="$CTL" 2>&1)
rc=$?
echo "$out"
check "nobody may not use the control socket" [ $rc -ne 0 ]
check "... and is told so, with the socket's group" grep -q "permission denied on the control socket $T/pub/control.sock (group $group)" <<<"$out"
check "... not that the coordinator did not answer" bash -c "! grep -q 'no answer' <<<'$out'"
chgrp "$NOGROUP" "$T/pub/control.sock"
out=$(as_nobody "$IOFLEET" agents --coordinator="$CTL" 2>&1)
check "in the socket's group, nobody gets the list" grep -q "a0 .* idle" <<<"$out"
chmod 0700 "$T/pub"
out=$(as_nobody "$IOFLEET" agents --coordinator="$CTL" 2>&1)
check "a directory it may not search is named as the reason" grep -q "permission denied on the control socket .*may not search its directory" <<<"$out"
finish
