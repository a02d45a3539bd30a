# Assertions shared by the integration tests (lib.sh) and the guest scenarios
# (tests/vm/guest/lib.sh): each prints "ok:" or "FAIL:" and counts; skip exits 77.
failures=0
passes=0

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

ok() {
	passes=$((passes + 1))
	echo "ok: $*"
}

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# jqcheck DESCRIPTION FILE FILTER: passes when the jq filter yields true.
jqcheck() {
	local what=$1 file=$2 filter=$3 got
	got=$(jq -r "$filter" "$file" 2>&1) || true
	if [ "$got" = "true" ]; then ok "$what"; else fail "$what (jq '$filter' gave '$got')"; fi
}
