#!/usr/bin/env bash
# Issue 10, the engines against fio 3.33 on the same job file (fio-io/engines.fio): the system
# calls each made on its files (strace), the bytes and I/Os each reported, what the file operation
# engines left in their directories and reported (one latency per file, fio's fake I/O per
# block). fio 3.33 has no dircreate/dirstat/dirdelete: iofleet's are checked against their later
# fio's meaning (fio-io/dirs.fio).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fio-io/lib.sh"
need_tools
scratch

files="sync syncrand pvsync pvsync2 hipri vsync posixaio mmap mmapw falloc fallocr ftruncate"
for d in fio iof; do
	# shellcheck disable=SC2086
	lay_out "$T/$d" 4m $files
	mkdir -p "$T/$d/fc" "$T/$d/fs" "$T/$d/fd" "$T/$d/dc" "$T/$d/ds" "$T/$d/dd"
done
run_both "$IOFLEET_SRC/tests/integration/fio-io/engines.fio"
check "fio ran the job file" jq -e '[.jobs[] | .error] | all(. == 0)' "$T/fio.json"
check "iofleet ran it" jq -e '.iofleet.status == "ok"' "$T/iof.json"

same_io "sync: read(2) after lseek, fio's sequence" sync 1024
cmp_io "sync, random: 4m in 4k reads" syncrand bytes 0
check "sync: lseek(2) before the random reads, as fio" bash -c \
	"[ \$(python3 $IOT syscalls $T/fio.trace lseek | grep -c fio/syncrand) -ge 1000 ] && [ \$(python3 $IOT syscalls $T/iof.trace lseek | grep -c iof/syncrand) -ge 1000 ]"
same_io "pvsync: preadv(2), fio's sequence" pvsync 1024
cmp_io "pvsync2: 4m in preadv2 calls" pvsync2 bytes 0
check "hipri: RWF_HIPRI on fio's preadv2" bash -c "python3 $IOT syscalls $T/fio.trace preadv2 | grep fio/hipri | grep -q RWF_HIPRI"
check "hipri: RWF_HIPRI on iofleet's preadv2" bash -c "python3 $IOT syscalls $T/iof.trace preadv2 | grep iof/hipri | grep -q RWF_HIPRI"
cmp_io "vsync, iodepth_batch=8: 8 blocks per readv(2)" vsync mean_len 0
cmp_io "vsync: as many readv calls" vsync ios 0
cmp_io "posixaio: 4m read (by glibc's AIO threads)" posixaio bytes 0
cmp_io "posixaio: every block once" posixaio distinct_blocks 0
for j in mmap mmapw; do
	check "$j: the I/Os fio counts" test "$(fio_job $j '.read.total_ios + .write.total_ios')" = "$(iof_job $j '.read.total_ios + .write.total_ios')"
	check "$j: the bytes fio counts" test "$(fio_job $j '.read.io_bytes + .write.io_bytes')" = "$(iof_job $j '.read.io_bytes + .write.io_bytes')"
done
check "mmap: no read(2) on the mapped file" bash -c "! python3 $IOT syscalls $T/iof.trace pread64 | grep -q iof/mmap"
check "mmap writes reached the file (not zeroes any more)" bash -c "[ \"\$(tr -d '\\\\0' < $T/iof/mmapw | head -c 1 | wc -c)\" = 1 ]"
fmodes() { python3 "$IOT" syscalls "$1" fallocate | grep "/$2>" | awk -F', ' '{print $2}' | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' '; }
check "falloc, writes: fallocate(mode 0) per block, as fio ($(fmodes "$T/iof.trace" falloc))" \
	test "$(fmodes "$T/fio.trace" falloc)" = "$(fmodes "$T/iof.trace" falloc)"
check "falloc, reads: FALLOC_FL_KEEP_SIZE per block, as fio ($(fmodes "$T/iof.trace" fallocr))" \
	test "$(fmodes "$T/fio.trace" fallocr)" = "$(fmodes "$T/iof.trace" fallocr)"
ntrunc() { python3 "$IOT" syscalls "$1" ftruncate | grep -c "/$2>"; }
check "ftruncate: one ftruncate(2) per write ($(ntrunc "$T/iof.trace" ftruncate))" test "$(ntrunc "$T/fio.trace" ftruncate)" = "$(ntrunc "$T/iof.trace" ftruncate)"
check "ftruncate: the file ends where fio's does" test "$(stat -c %s "$T/fio/ftruncate")" = "$(stat -c %s "$T/iof/ftruncate")"
for j in filecreate filestat filedelete; do
	for k in total_ios io_bytes clat_ns.N; do
		check "$j: read.$k as fio ($(iof_job $j ".read.$k"))" test "$(fio_job $j ".read.$k")" = "$(iof_job $j ".read.$k")"
	done
	check "$j: a latency per file" test "$(iof_job $j '.read.clat_ns.N')" = 20
done
check "filecreate: 20 empty files, as fio" test "$(find "$T/iof/fc" -type f -size 0 | wc -l)" = "$(find "$T/fio/fc" -type f -size 0 | wc -l)"
check "filestat: the files stay" test "$(find "$T/iof/fs" -type f | wc -l)" = 20
check "filedelete: none left, as fio" test "$(find "$T/iof/fd" -type f | wc -l)" = "$(find "$T/fio/fd" -type f | wc -l)"

# fio 3.34's directory engines
sed "s|@D@|$T/iof|g" "$IOFLEET_SRC/tests/integration/fio-io/dirs.fio" >"$T/dirs.fio"
(cd "$T" && "$IOFLEET" run --local=1 --results-dir="$T/runs" --output-format=json --output="$T/dirs.json" "$T/dirs.fio" >"$T/dirs.log" 2>&1)
check "iofleet ran the directory engines" jq -e '.iofleet.status == "ok"' "$T/dirs.json"
check "dircreate: 20 directories" test "$(find "$T/iof/dc" -mindepth 1 -type d | wc -l)" = 20
check "dirstat: the 20 directories it laid out stay" test "$(find "$T/iof/ds" -mindepth 1 -type d | wc -l)" = 20
check "dirdelete: all removed" test "$(find "$T/iof/dd" -mindepth 1 | wc -l)" = 0
jqcheck "dircreate: one latency per directory, the blocks as fake I/O" "$T/dirs.json" \
	'[.client_stats[] | select(.jobname == "dircreate")][0].read | .clat_ns.N == 20 and .total_ios == 40 and .io_bytes == 163840'
jqcheck "dirstat (rw=write): counted as writes, as fio counts by the job's direction" "$T/dirs.json" \
	'[.client_stats[] | select(.jobname == "dirstat")][0] | .write.clat_ns.N == 20 and .read.total_ios == 0'
finish
