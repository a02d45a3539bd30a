#!/usr/bin/env bash
# Issue 10, the I/O pattern options against fio 3.33 on the same job file (fio-io/pattern.fio):
# what each tool did to its files, seen from outside through strace. Where fio seeds its streams
# as documented by its own behaviour (random_generator=tausworthe/tausworthe64, bssplit's draws,
# randseed with randrepeat=0) the offsets and block sizes are the same ones; elsewhere the
# distributions agree within the stated tolerances (a few thousand I/Os: shares within 0.03).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fio-io/lib.sh"
need_tools
scratch

files="taus taus64 seed splitseq holes backwards bssplit bsrange unaligned ba seqnr ident percrand
lfsr map zipf pareto normal zoned zonedabs sizepct iosize numberios offinc"
# shellcheck disable=SC2086
lay_out "$T/fio" 16m $files
# shellcheck disable=SC2086
lay_out "$T/iof" 16m $files
lay_out "$T/fio" 1m holeswrap
lay_out "$T/iof" 1m holeswrap
run_both "$IOFLEET_SRC/tests/integration/fio-io/pattern.fio"
check "fio ran the job file" jq -e '.jobs | length == 26' "$T/fio.json"
check "iofleet ran it" jq -e '.iofleet.status == "ok"' "$T/iof.json"

# fio's own sequences
same_io "random_generator=tausworthe: fio's offsets (thread 1)" taus 300
same_io "random_generator=tausworthe64: fio's offsets" taus64 300
same_io "randrepeat=0 randseed=1234: fio's offsets" seed 300
same_io "bssplit=4k/30:8k/30: fio's offsets and block sizes" splitseq 300
same_io "rw=write:4k in the first 1m of a 16m file: 128 writes, then the file is done" holes 128
cmp_io "rw=write:4k in the first 1m of a 16m file: 512k written" holes bytes 0
same_io "rw=write:4k on a 1m file: going round, 256 writes" holeswrap 256
same_io "rw=read:-8k: backwards from the end" backwards 256

# block sizes
cmp_io "bssplit=4k/50:64k/50,8k/100: read sizes" bssplit bs_share 0.03 r
cmp_io "bssplit: write sizes all 8k" bssplit bs_share 0.001 w
cmp_io "bsrange=4k-16k: shares of 4k, 8k, 12k, 16k" bsrange bs_share 0.03
cmp_io "bsrange=1000-3000 bs_unaligned: mean size" unaligned mean_len 40
cmp_io "ba=512: offsets off 4k boundaries" ba unaligned_4k 0.03
# offsets
cmp_io "rw=randread:4: 3 of 4 I/Os sequential" seqnr seq_share 0.03
cmp_io "rw_sequencer=identical: 3 of 4 at the same offset" ident same_share 0.03
cmp_io "percentage_random=70: 30% sequential" percrand seq_share 0.03
cmp_io "random_generator=lfsr: every block once" lfsr repeats 0
cmp_io "random_generator=lfsr: 1024 blocks" lfsr distinct_blocks 0
cmp_io "random map with bssplit: bytes = the region" map bytes 0
cmp_io "random map with bssplit: no block twice" map repeats 0
cmp_io "random_distribution=zipf:1.2: hottest tenth's share" zipf hot10_share 0.03
cmp_io "random_distribution=pareto:0.3: hottest tenth's share" pareto hot10_share 0.03
cmp_io "random_distribution=normal:10: hottest tenth's share" normal hot10_share 0.04
cmp_io "zoned:60/10:30/20:10/70: zone shares" zoned zone_share 0.03 "" 4096 1677721,5033164
cmp_io "zoned_abs:80/2m:20/14m: zone shares" zonedabs zone_share 0.03 "" 4096 2097152
# sizes and counts
cmp_io "size=25%: 4m of the 16m file" sizepct bytes 0
cmp_io "size=25%: nothing past 4m" sizepct max_end 0
cmp_io "io_size=12m over size=4m: 12m moved" iosize bytes 0
cmp_io "io_size: within the 4m region" iosize max_end 0
cmp_io "number_ios=100" numberios ios 0
cmp_io "offset_increment=4m, numjobs=2: clones in [0,2m) and [4m,6m)" offinc zone_share 0.001 "" 4096 2097152,4194304,6291456
cmp_io "offset_increment: 4m moved" offinc bytes 0
# fio's last I/O may go past the budget, iofleet's is cut to it: within one largest block
check "bssplit: the bytes of both directions add up to size, as fio's" python3 - \
	"$(fio_job bssplit '.read.io_bytes + .write.io_bytes')" "$(iof_job bssplit '.read.io_bytes + .write.io_bytes')" <<'PY'
import sys
a, b = int(sys.argv[1]), int(sys.argv[2])
print('fio %d, iofleet %d' % (a, b))
sys.exit(0 if abs(a - b) <= 65536 else 1)
PY
finish
