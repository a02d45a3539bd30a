#!/usr/bin/env python3
"""The I/Os a program did on each file, read from `strace -f -ttt -y -s0` output, and figures
that compare two runs of the same job (fio's and iofleet's): block size shares, offsets, skew,
zone shares, sequential share, coverage, gaps between I/Os.

  iotrace.py stats TRACE FILE_SUFFIX            print the figures of the I/Os on files ending so
  iotrace.py offsets TRACE FILE_SUFFIX [N]      print the first N offsets and lengths
  iotrace.py syscalls TRACE NAME                print the argument lists of every call NAME
  iotrace.py compare A SUF_A B SUF_B KEY TOL [OP] [BLOCK] [ZONES]
                                                figure KEY of both (each element of a list or
                                                map) within TOL (N%: relative); OP r or w keeps
                                                one direction
  iotrace.py same A SUF_A B SUF_B N             the first N I/Os (offset, length) are the same
"""
import collections
import glob
import json
import os
import math
import re
import sys

LINE = re.compile(r'^(?:\[pid\s+)?(\d+)\]?\s+([\d.]+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)')
FD = re.compile(r'^(\d+)<([^>]*)>')


def split_args(s):
    """Top-level comma-separated arguments (brackets and quotes nest)."""
    out, depth, cur, quote = [], 0, '', False
    for c in s:
        if quote:
            cur += c
            if c == '"':
                quote = False
            continue
        if c == '"':
            quote = True
        elif c in '[{':
            depth += 1
        elif c in ']}':
            depth -= 1
        elif c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def trace_lines(path):
    """The lines of a trace: PATH itself, or PATH.PID files of strace -ff, thread by thread."""
    paths = [path] if os.path.exists(path) else sorted(glob.glob(glob.escape(path) + '.*'))
    for p in paths:
        with open(p, errors='replace') as f:
            pid = p.rsplit('.', 1)[-1] if p != path else ''
            for line in f:
                yield line if not pid else pid + ' ' + line


def io_list(path, suffix):
    """[(time, op, offset, length)] of the data calls on files whose path ends with suffix, in the
    order they returned. op: 'r' or 'w' (or the call's name for fallocate and ftruncate)."""
    pos = {}
    ios = []
    if True:
        for line in trace_lines(path):
            m = LINE.match(line)
            if not m:
                continue
            pid, t, call, args, ret = m.groups()
            a = split_args(args)
            if not a:
                continue
            fm = FD.match(a[0])
            if not fm or not fm.group(2).endswith(suffix):
                continue
            key = (pid, fm.group(1))
            if ret == '?' or int(ret) < 0:
                continue
            r = int(ret)
            t = float(t)
            if call == 'lseek':
                pos[key] = r
            elif call in ('pread64', 'pwrite64'):
                ios.append((t, 'w' if call == 'pwrite64' else 'r', int(a[3]), r))
            elif call in ('preadv', 'pwritev', 'preadv2', 'pwritev2'):
                ios.append((t, 'w' if call.startswith('pw') else 'r', int(a[3]), r))
            elif call in ('read', 'write', 'readv', 'writev'):
                p = pos.get(key, 0)
                ios.append((t, 'w' if call.startswith('w') else 'r', p, r))
                pos[key] = p + r
            elif call == 'fallocate':
                ios.append((t, 'fallocate:' + a[1], int(a[2]), int(a[3])))
            elif call == 'ftruncate':
                ios.append((t, 'ftruncate', int(a[1]), 0))
    return ios


def stats(ios, block=4096, zones=None):
    n = len(ios)
    out = {'ios': n, 'bytes': sum(i[3] for i in ios)}
    if not n:
        return out
    lens = collections.Counter(i[3] for i in ios)
    out['bs_share'] = {str(k): v / n for k, v in sorted(lens.items())}
    out['mean_len'] = out['bytes'] / n
    out['max_end'] = max(i[2] + i[3] for i in ios)
    out['min_offset'] = min(i[2] for i in ios)
    out['unaligned_4k'] = sum(1 for i in ios if i[2] % 4096) / n
    seq = sum(1 for a, b in zip(ios, ios[1:]) if b[2] == a[2] + a[3])
    out['seq_share'] = seq / max(n - 1, 1)
    same = sum(1 for a, b in zip(ios, ios[1:]) if b[2] == a[2])
    out['same_share'] = same / max(n - 1, 1)
    hits = collections.Counter(i[2] // block for i in ios)
    counts = sorted(hits.values(), reverse=True)
    nblocks = out['max_end'] // block + 1
    top = counts[: max(nblocks // 10, 1)]
    out['hot10_share'] = sum(top) / n
    out['distinct_blocks'] = len(hits)
    out['repeats'] = n - len(hits)
    gaps = [b[0] - a[0] for a, b in zip(ios, ios[1:])]
    if len(gaps) > 2:
        mean = sum(gaps) / len(gaps)
        sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps))
        out['gap_mean'] = mean
        out['gap_cv'] = sd / mean if mean else 0
        # the median absolute deviation over the median: about 0.7 for exponential gaps, near 0
        # for fixed ones; gaps a loaded scheduler stretched (or squeezed in the catch-up after),
        # which the CV feels at once, do not move it while they are fewer than half
        srt = sorted(gaps)
        med = srt[len(srt) // 2]
        dev = sorted(abs(g - med) for g in gaps)
        out['gap_mad'] = dev[len(dev) // 2] / med if med else 0
        out['span'] = ios[-1][0] - ios[0][0]
        out['stall_share'] = sum(1 for g in gaps if g > 0.0015) / len(gaps)
        out['stall3_share'] = sum(1 for g in gaps if g > 0.003) / len(gaps)
        out['stall8_share'] = sum(1 for g in gaps if g > 0.008) / len(gaps)
        out['long_stalls'] = sum(1 for g in gaps if g > 0.15)
        out['iops'] = (n - 1) / out['span'] if out['span'] > 0 else 0
    if zones:
        edges = [int(z) for z in zones.split(',')]
        share = [0] * (len(edges) + 1)
        for i in ios:
            k = 0
            while k < len(edges) and i[2] >= edges[k]:
                k += 1
            share[k] += 1
        out['zone_share'] = [s / n for s in share]
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, trace, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    if cmd == 'stats':
        block = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
        zones = sys.argv[5] if len(sys.argv) > 5 else None
        print(json.dumps(stats(io_list(trace, arg), block, zones)))
    elif cmd == 'offsets':
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        for i in io_list(trace, arg)[:n]:
            print(i[1], i[2], i[3])
    elif cmd == 'compare':
        a, sa, b, sb, key, tol = sys.argv[2:8]
        op = sys.argv[8] if len(sys.argv) > 8 and sys.argv[8] in ('r', 'w') else None
        block = int(sys.argv[9]) if len(sys.argv) > 9 else 4096
        zones = sys.argv[10] if len(sys.argv) > 10 else None
        ia, ib = io_list(a, sa), io_list(b, sb)
        if op:
            ia = [i for i in ia if i[1] == op]
            ib = [i for i in ib if i[1] == op]
        x, y = stats(ia, block, zones).get(key), stats(ib, block, zones).get(key)
        print('%s: fio %s, iofleet %s (tolerance %s)' % (key, x, y, tol))
        if x is None or y is None:
            return 1
        if isinstance(x, dict):
            keys = set(x) | set(y)
            return 0 if all(abs(x.get(k, 0) - y.get(k, 0)) <= float(tol) for k in keys) else 1
        if isinstance(x, list):
            return 0 if len(x) == len(y) and all(abs(p - q) <= float(tol) for p, q in zip(x, y)) else 1
        if tol.endswith('%'):
            return 0 if abs(x - y) <= float(tol[:-1]) / 100 * max(abs(x), abs(y)) else 1
        return 0 if abs(x - y) <= float(tol) else 1
    elif cmd == 'same':
        a, sa, b, sb, n = sys.argv[2:7]
        ia = [(i[2], i[3]) for i in io_list(a, sa)][: int(n)]
        ib = [(i[2], i[3]) for i in io_list(b, sb)][: int(n)]
        print('fio %s... iofleet %s... (%d and %d I/Os)' % (ia[:3], ib[:3], len(ia), len(ib)))
        return 0 if ia == ib and len(ia) == int(n) else 1
    elif cmd == 'periodic':
        # every Nth gap (after I/O N, 2N, ...): the share at least MIN_S long, and the median
        # of the other gaps
        every, least = int(sys.argv[4]), float(sys.argv[5])
        ios = io_list(trace, arg)
        gaps = [b[0] - a[0] for a, b in zip(ios, ios[1:])]
        marked = [g for i, g in enumerate(gaps) if i % every == every - 1]
        others = sorted(g for i, g in enumerate(gaps) if i % every != every - 1)
        print(json.dumps({'ios': len(ios),
                          'long_share': sum(1 for g in marked if g >= least) / len(marked) if marked else 0,
                          'others_median': others[len(others) // 2] if others else None}))
    elif cmd == 'syscalls':
        for line in trace_lines(trace):
            m = LINE.match(line)
            if m and m.group(3) == arg:
                print(m.group(4), '=', m.group(5))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
