#!/usr/bin/env bash
# fio 3.33 and iofleet on the same jobs, compared by their effects (issue 10, files half): the
# order of jobs (stonewall, new_group, wait_for, exitall, loops, files given together), the files
# layout leaves (fallocate, overwrite, create_on_open, file_append, unlink, unique_filename,
# allow_file_create, opendir, file_service_type, openfiles), what writes carry (compression and
# dedupe ratios), verification (every kind, backlog, verify_only on damage), continue_on_error,
# steady state, and programs run only when an agent's config names them.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
scratch
cd "$T"
D=$T/data
F=$T/fio
mkdir -p "$D" "$F"

# iof JSON ARGS...: an iofleet run on one local agent, its JSON in $T/JSON.
iof() {
	local out=$1
	shift
	"$IOFLEET" run --local=1 --lead=200ms --results-dir="$T/runs" --output-format=json --output="$T/$out" \
		"$@" >"$T/$out.log" 2>&1
}
# fiorun JSON ARGS...: fio itself, its JSON in $T/JSON.
fiorun() {
	local out=$1
	shift
	fio --output-format=json --output="$T/$out.raw" "$@" >"$T/$out.log" 2>&1
	# fio may print notes ("opendir added 2 files") before its JSON
	sed -n '/^{/,$p' "$T/$out.raw" >"$T/$out"
}
# same DESCRIPTION A B: the two values are equal.
same() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: fio '$2', iofleet '$3'"; fi
}
# near DESCRIPTION A B TOLERANCE: |A - B| <= TOLERANCE.
near() {
	if python3 -c "import sys; sys.exit(0 if abs($2 - $3) <= $4 else 1)"; then
		ok "$1 (fio $2, iofleet $3)"
	else
		fail "$1: fio $2, iofleet $3, tolerance $4"
	fi
}

# --- job order -------------------------------------------------------------------------------
# Five jobs of 3 s writing their own files: a and b together, c after them (stonewall), d with c
# (a new reporting group, no wait), e after d (wait_for). Each tool's order is read from the files'
# modification times, the same way for both: which jobs ended together and which after which.
cat >order.fio <<EOF
[global]
ioengine=psync
rw=write
bs=64k
size=4m
time_based
runtime=3s
[a]
[b]
[c]
stonewall
[d]
new_group
[e]
wait_for=d
EOF
order_of() { # DIR: "a=b<c=d<e" from the files' modification times
	python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
t = sorted((os.stat(os.path.join(d, n)).st_mtime, n) for n in os.listdir(d))
groups, last = [], None
for m, n in t:
    if last is None or m - last >= 1.5:
        groups.append([])
    groups[-1].append(n)
    last = m
print("<".join("=".join(sorted(g)) for g in groups))
PY
}
mkdir -p "$F/order" "$D/order"
fiorun order-fio.json --directory="$F/order" --filename_format='$jobname' order.fio
iof order.json --directory="$D/order" --filename_format='$jobname' order.fio
check "iofleet runs the ordered jobs" [ $? -eq 0 ]
same "order of jobs (= together, < after)" "$(order_of "$F/order")" "$(order_of "$D/order")"
same "reporting groups (groupid per job)" \
	"$(jq -c '[.jobs[] | .groupid]' order-fio.json)" \
	"$(jq -c '[.client_stats[:-1][] | .groupid]' order.json)"
jqcheck "each job's start follows the order" order.json \
	'[.iofleet.jobs[] | .start_ns] | (.[0] == 0 and .[1] == 0 and .[2] > 3e9 and .[3] == .[2] and .[4] > .[3] + 3e9)'

# Two job files given together: the second's jobs run after the first's (fio's implied
# stonewall), and --showcmd prints that as a command line that runs the same.
mkdir -p "$F/files2" "$D/files2"
cat >one.fio <<EOF
[one]
filename_format=\$jobname
ioengine=psync
rw=write
bs=64k
size=1m
time_based
runtime=2s
EOF
sed 's/\[one\]/[two]/' one.fio >two.fio
for t in F D; do
	sed "s|^\[\(.*\)\]|[\1]\ndirectory=${!t}/files2|" one.fio >$t-one.fio
	sed "s|^\[\(.*\)\]|[\1]\ndirectory=${!t}/files2|" two.fio >$t-two.fio
done
fiorun two-fio.json F-one.fio F-two.fio
iof two.json D-one.fio D-two.fio
same "two job files: one after the other" "$(order_of "$F/files2")" "$(order_of "$D/files2")"
"$IOFLEET" run --showcmd one.fio two.fio >showcmd.txt 2>&1
check "--showcmd: the second file's job waits (--stonewall)" grep -q -- '--name=two .*--stonewall' showcmd.txt

# exitall: the first job to end ends the others of its group; the group after still runs.
cat >exitall.fio <<EOF
[global]
ioengine=psync
bs=4k
[long]
rw=read
size=4m
time_based
runtime=20s
[short]
exitall
rw=read
size=8m
rate=8m
[after]
stonewall
rw=read
size=1m
EOF
fiorun exitall-fio.json --directory="$F" exitall.fio
iof exitall.json --directory="$D" exitall.fio
near "exitall: the long job ends with the short one (s)" \
	"$(jq '.jobs[0].job_runtime / 1000 | round' exitall-fio.json)" \
	"$(jq '.client_stats[0].job_runtime / 1000 | round' exitall.json)" 1
same "exitall: the next group still runs (bytes)" \
	"$(jq '.jobs[2].read.io_bytes' exitall-fio.json)" "$(jq '.client_stats[2].read.io_bytes' exitall.json)"

# loops: the size-bound workload again.
fiorun loops-fio.json --name=l --rw=write --bs=64k --size=2m --loops=3 --directory="$F"
iof loops.json --name=l --rw=write --bs=64k --size=2m --loops=3 --directory="$D"
same "loops=3 writes three times the size" "$(jq '.jobs[0].write.io_bytes' loops-fio.json)" \
	"$(jq '.client_stats[0].write.io_bytes' loops.json)"

# --- files ---------------------------------------------------------------------------------------
# What layout leaves for every fallocate and overwrite mode of a read and a write job: the
# file's size and its allocated blocks (one job per case, one run per tool).
mkdir -p "$F/fa" "$D/fa"
{
	echo "[global]"
	echo "bs=64k"
	echo "size=1m"
	echo "create_only=1"
	for rw in write read; do
		for fa in none native posix keep truncate; do
			for ow in 0 1; do
				printf '[%s-%s-%s]\nrw=%s\nfallocate=%s\noverwrite=%s\nfilename=%s-%s-%s\n' \
					$rw $fa $ow $rw $fa $ow $rw $fa $ow
			done
		done
	done
} >fa.fio
fio --directory="$F/fa" fa.fio >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --directory="$D/fa" fa.fio >"$T/fa.log" 2>&1
check "iofleet lays out the 20 cases" [ $? -eq 0 ]
for f in $(cd "$F/fa" && ls); do
	same "$f (rw-fallocate-overwrite): size/blocks" "$(stat -c %s/%b "$F/fa/$f")" \
		"$(stat -c %s/%b "$D/fa/$f" 2>/dev/null)"
done
# A short file a read job needs is laid out anew (fio unlinks it first).
printf 'abc' >"$F/short"
printf 'abc' >"$D/short"
fio --name=s --rw=read --bs=4k --size=64k --filename="$F/short" --create_only=1 >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=s --rw=read --bs=4k --size=64k \
	--filename="$D/short" --create_only=1 >"$T/short.log" 2>&1
gone() { [ "$(head -c3 "$1")" != abc ] && echo gone || echo kept; }
same "a short file read: laid out anew, its old bytes gone" \
	"$(stat -c %s "$F/short"):$(gone "$F/short")" "$(stat -c %s "$D/short"):$(gone "$D/short")"
# file_append: writes go after the end.
head -c 65536 /dev/urandom >"$F/app"
cp "$F/app" "$D/app"
fio --name=a --rw=write --bs=4k --size=64k --file_append=1 --filename="$F/app" >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=a --rw=write --bs=4k --size=64k \
	--file_append=1 --filename="$D/app" >"$T/app.log" 2>&1
same "file_append: the file grows by size" "$(stat -c %s "$F/app")" "$(stat -c %s "$D/app")"
same "file_append: what was there stays" "$(head -c 65536 "$F/app" | md5sum)" \
	"$(head -c 65536 "$D/app" | md5sum)"
# unlink, create_on_open, allow_file_create=0, unique_filename=0.
fio --name=u --rw=write --bs=4k --size=64k --unlink=1 --directory="$F" >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=u --rw=write --bs=4k --size=64k \
	--unlink=1 --directory="$D" >"$T/u.log" 2>&1
same "unlink=1: no file left" "$(ls "$F" | grep -c '^u\.')" "$(ls "$D" | grep -c '^u\.')"
fio --name=n --rw=write --bs=4k --size=64k --unique_filename=0 --directory="$F" >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=n --rw=write --bs=4k --size=64k \
	--unique_filename=0 --directory="$D" >"$T/n.log" 2>&1
same "unique_filename=0: fio's own file name" "$(cd "$F" && ls n.*)" "$(cd "$D" && ls n.*)"
fio --name=c --rw=write --bs=4k --size=64k --allow_file_create=0 --filename="$F/none" >/dev/null 2>&1
a=$?
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=c --rw=write --bs=4k --size=64k \
	--allow_file_create=0 --filename="$D/none" >"$T/c.log" 2>&1
b=$?
same "allow_file_create=0 and no file: refused, nothing made" \
	"$([ $a -ne 0 ] && [ ! -e "$F/none" ] && echo refused)" \
	"$([ $b -ne 0 ] && [ ! -e "$D/none" ] && echo refused)"
check "allow_file_create=0: the error says so" grep -q "allow_file_create=0" "$T/c.log"
fiorun coo-fio.json --name=o --rw=write --bs=4k --size=256k --create_on_open=1 --fallocate=none --filename="$F/coo"
iof coo.json --name=o --rw=write --bs=4k --size=256k --create_on_open=1 --fallocate=none --filename="$D/coo"
same "create_on_open: made by the job's open, written in full" "$(stat -c %s "$F/coo")" \
	"$(stat -c %s "$D/coo")"
# opendir: every regular file below the directory, used as it is.
for t in "$F" "$D"; do
	mkdir -p "$t/tree/sub/deeper"
	head -c 131072 /dev/urandom >"$t/tree/x"
	head -c 65536 /dev/urandom >"$t/tree/sub/y"
	head -c 262144 /dev/urandom >"$t/tree/sub/deeper/z"
done
fiorun od-fio.json --name=od --rw=read --bs=4k --opendir="$F/tree"
iof od.json --name=od --rw=read --bs=4k --opendir="$D/tree"
same "opendir: every file below it read" "$(jq '.jobs[0].read.io_bytes' od-fio.json)" \
	"$(jq '.client_stats[0].read.io_bytes' od.json)"
# file_service_type / openfiles: which files a paced 2 s write reached (sizes in 64k steps).
sizes() { # DIR PREFIX: the sizes of PREFIX's four files, in 64 KiB, sorted by name
	for i in 0 1 2 3; do echo $(($(stat -c %s "$1/$2$i" 2>/dev/null || echo 0) / 65536)); done | paste -sd,
}
for fst in sequential roundrobin "roundrobin --openfiles=2"; do
	tag=$(echo "$fst" | tr -dc 'a-z')
	rm -f "$F/$tag"* "$D/$tag"*
	fio --name=$tag --rw=write --bs=4k --nrfiles=4 --filesize=1m --fallocate=none --time_based \
		--runtime=2 --rate=1m --file_service_type=$fst --directory="$F" \
		--filename_format="$tag\$filenum" >/dev/null 2>&1
	"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=$tag --rw=write --bs=4k --nrfiles=4 \
		--filesize=1m --fallocate=none --time_based --runtime=2 --rate=1m \
		--file_service_type=$fst --directory="$D" --filename_format="$tag\$filenum" \
		>"$T/fst.log" 2>&1
	f=$(sizes "$F" "$tag") d=$(sizes "$D" "$tag")
	# each file's share of what was written within 0.15 (a slow host writes less in the 2 s,
	# but to the same files in the same proportions)
	check "file_service_type=$fst: the files reached, fio $f, iofleet $d" python3 -c "
a = [int(x) for x in '$f'.split(',')]; b = [int(x) for x in '$d'.split(',')]
import sys
sa, sb = sum(a) or 1, sum(b) or 1
sys.exit(0 if sum(b) and all(abs(x / sa - y / sb) <= 0.15 for x, y in zip(a, b)) else 1)"
done

# --- buffers ---------------------------------------------------------------------------------
# What writes carry, as a deduplicating and a compressing store would see it: the share of unique
# 4 KiB blocks, of zero bytes, and zlib's ratio.
cat >an.py <<'PY'
import sys, zlib, hashlib
d = open(sys.argv[1], 'rb').read()
b = [d[i:i + 4096] for i in range(0, len(d), 4096)]
u = len(set(hashlib.md5(x).digest() for x in b)) / len(b)
z = d.count(0) / len(d)
c = sum(len(zlib.compress(x, 1)) for x in b) / len(d)
print("%.3f %.3f %.3f" % (u, z, c))
PY
cases=(
	"zero zero_buffers=1"
	"noscramble scramble_buffers=0"
	"refill refill_buffers=1"
	"pattern buffer_pattern=0xdeadbeef"
	"patternmix buffer_pattern=\"abcd\"-12"
	"compress50 buffer_compress_percentage=50"
	"compress50c4k buffer_compress_percentage=50 buffer_compress_chunk=4k"
	"dedupe50 dedupe_percentage=50"
	"dedupews dedupe_percentage=50 dedupe_mode=working_set dedupe_working_set_percentage=10"
	"zeroscrambled zero_buffers=1 scramble_buffers=1"
	"default"
)
{
	printf '[global]\nrw=write\nbs=4k\nsize=4m\n'
	for c in "${cases[@]}"; do
		set -- $c
		printf '[%s]\nfilename=b-%s\n' "$1" "$1"
		shift
		for o in "$@"; do echo "$o"; done
	done
} >bufs.fio
fio --directory="$F" bufs.fio >/dev/null 2>&1
"$IOFLEET" run --local=1 --results-dir="$T/runs" --directory="$D" bufs.fio >"$T/b.log" 2>&1
check "iofleet writes every buffer case" [ $? -eq 0 ]
for c in "${cases[@]}"; do
	set -- $c
	n=$1
	[ "$n" = default ] && continue
	read -r fu fz fc < <(python3 an.py "$F/b-$n")
	read -r iu iz ic < <(python3 an.py "$D/b-$n")
	near "$n: unique blocks" "$fu" "$iu" 0.03
	near "$n: zero bytes" "$fz" "$iz" 0.05
	near "$n: zlib ratio" "$fc" "$ic" 0.05
done
# The default scrambles without growing compressible: every block unique, and no more
# compressible than fio's.
read -r fu fz fc < <(python3 an.py "$F/b-default")
read -r iu iz ic < <(python3 an.py "$D/b-default")
same "default: every block unique" "$fu" "$iu"
check "default: no more compressible than fio's (fio $fc, iofleet $ic)" \
	python3 -c "import sys; sys.exit(0 if $ic >= $fc - 0.01 else 1)"

# --- verification ------------------------------------------------------------------------------
{
	printf '[global]\nrw=randwrite\nbs=4k\nsize=1m\n'
	for v in crc32c md5 sha256 meta xxhash; do printf '[%s]\nverify=%s\nfilename=v-%s\n' $v $v $v; done
} >vk.fio
fiorun vk-fio.json --directory="$F" vk.fio
iof vk.json --directory="$D" vk.fio
for i in 0 1 2 3 4; do
	same "verify=$(jq -r ".jobs[$i].jobname" vk-fio.json): written, read back, no error" \
		"$(jq -c ".jobs[$i] | [.jobname, .write.io_bytes, .read.io_bytes, .error]" vk-fio.json)" \
		"$(jq -c ".client_stats[$i] | [.jobname, .write.io_bytes, .read.io_bytes, .error]" vk.json)"
done
for o in "--verify_pattern=0xdeadbeef%o" "--verify=crc32c --verify_backlog=16" \
	"--verify=crc32c --verify_backlog=16 --verify_backlog_batch=4" \
	"--verify=md5 --verify_interval=4k --verify_offset=1k --bs=64k" "--verify=crc32c --do_verify=0"; do
	fiorun v-fio.json --name=v --rw=write --bs=4k --size=1m $o --filename="$F/v-o"
	iof v.json --name=v --rw=write --bs=4k --size=1m $o --filename="$D/v-o"
	same "$o: bytes written and read back" \
		"$(jq -c '.jobs[0] | [.write.io_bytes, .read.io_bytes, .error]' v-fio.json)" \
		"$(jq -c '.client_stats[0] | [.write.io_bytes, .read.io_bytes, .error]' v.json)"
done
# verify_only on a damaged block: both find it; iofleet names the offset.
for t in "$F" "$D"; do printf 'X' | dd of="$t/v-o" bs=1 seek=$((3 * 4096 + 700)) conv=notrunc 2>/dev/null; done
fiorun vo-fio.json --name=v --rw=write --bs=4k --size=1m --verify=crc32c --verify_only=1 --filename="$F/v-o"
iof vo.json --name=v --rw=write --bs=4k --size=1m --verify=crc32c --verify_only=1 --filename="$D/v-o"
same "verify_only finds the damaged block (error set)" "$(jq '.jobs[0].error != 0' vo-fio.json)" \
	"$(jq '.client_stats[0].error != 0' vo.json)"
jqcheck "verify_only names the block" vo.json '.client_stats[0].error_msg | test("offset 12288 is corrupt")'
# continue_on_error=verify: every block checked, the errors counted.
fiorun vc-fio.json --name=v --rw=write --bs=4k --size=1m --verify=crc32c --verify_only=1 \
	--continue_on_error=verify --filename="$F/v-o"
iof vc.json --name=v --rw=write --bs=4k --size=1m --verify=crc32c --verify_only=1 \
	--continue_on_error=verify --filename="$D/v-o"
same "continue_on_error=verify: total_err, and the job goes on" \
	"$(jq -c '.jobs[0] | [.total_err, .error]' vc-fio.json)" \
	"$(jq -c '.client_stats[0] | [.total_err, .error]' vc.json)"

# --- errors -----------------------------------------------------------------------------------
# A full file system: ENOSPC is fatal unless ignore_error lists it for writes.
if mkdir -p "$T/small" && mount -t tmpfs -o size=1m iofleet-it "$T/small" 2>/dev/null; then
	mkdir -p "$T/small/fio" "$T/small/iof"
	fiorun en-fio.json --name=e --rw=write --bs=4k --size=2m --fallocate=none \
		--continue_on_error=write --ignore_error=,ENOSPC --filename="$T/small/fio/f"
	rm -f "$T/small/fio/f"
	iof en.json --name=e --rw=write --bs=4k --size=2m --fallocate=none \
		--continue_on_error=write --ignore_error=,ENOSPC --filename="$T/small/iof/f"
	near "ignore_error=,ENOSPC: failed writes counted (total_err)" \
		"$(jq '.jobs[0].total_err' en-fio.json)" "$(jq '.client_stats[0].total_err' en.json)" 8
	same "ignore_error=,ENOSPC: the job is no failure" "$(jq '.jobs[0].error' en-fio.json)" \
		"$(jq '.client_stats[0].error' en.json)"
	umount "$T/small"
else
	echo "note: no tmpfs mount here; ENOSPC comparison left out"
fi

# --- steady state ------------------------------------------------------------------------------
head -c 16777216 /dev/urandom >"$F/ss"
cp "$F/ss" "$D/ss"
fiorun ss-fio.json --name=ss --rw=randread --bs=4k --size=16m --time_based --runtime=20 \
	--ss=iops:80% --ss_dur=3 --ss_ramp=1 --invalidate=0 --filename="$F/ss"
iof ss.json --name=ss --rw=randread --bs=4k --size=16m --time_based --runtime=20 \
	--ss=iops:80% --ss_dur=3 --ss_ramp=1 --invalidate=0 --filename="$D/ss"
same "steadystate: the block as fio writes it" \
	"$(jq -c '.jobs[0].steadystate | [.ss, .duration, .attained, (.data.iops | length)]' ss-fio.json)" \
	"$(jq -c '.client_stats[0].steadystate | [.ss, .duration, .attained, (.data.iops | length)]' ss.json)"
# Ended once attained: after ss_ramp + ss_dur (4 s), long before the runtime (20 s); under load
# fio's own end moves by a second or two, so each is held to that window rather than to the other.
jqcheck "steadystate: fio ends the job once attained" ss-fio.json \
	'.jobs[0].job_runtime >= 3500 and .jobs[0].job_runtime < 12000'
jqcheck "steadystate: iofleet ends the job once attained" ss.json \
	'.client_stats[0].job_runtime >= 3500 and .client_stats[0].job_runtime < 12000'

# --- programs ----------------------------------------------------------------------------------
# Refused by default, saying why; run when the agent's config names it.
iof ex.json --name=x --rw=write --bs=4k --size=64k --directory="$D" --exec_prerun=stamp
check "exec_prerun refused by an agent that names no command" grep -q "allows no such command" "$T/ex.json.log"
check "a command line is refused before anything runs" bash -c \
	"! '$IOFLEET' run --parse-only --name=x --size=1m --exec_prerun='echo hi > /tmp/x' 2>&1 | grep -q 'every option'"
cat >"$T/stamp.sh" <<'EOF'
#!/bin/sh
echo "stamped $IOFLEET_JOB $IOFLEET_PHASE"
EOF
chmod +x "$T/stamp.sh"
keys coordinator cmd
allow cmd
start_coordinator
start_agent cmd --allow-commands="stamp:$T/stamp.sh"
wait_agents 1
"$IOFLEET" run --coordinator="$CTL" --name=x --rw=write --bs=4k --size=64k --directory="$D" \
	--exec_prerun=stamp --exec_postrun=stamp >"$T/exrun.log" 2>&1
check "a named command runs (exit 0)" [ $? -eq 0 ]
check "its output as fio's JOB.prerun.txt" grep -q "stamped x prerun" "$D/x.prerun.txt"
check "and JOB.postrun.txt" grep -q "stamped x postrun" "$D/x.postrun.txt"
finish
