#!/usr/bin/env python3
"""Parallel split-K, one launch vs main + reduce, by the bytes the tile's last split sums.

    python3 pfix_buckets.py pf_0.csv[.zst] pf_on.csv[.zst]

pf_0: GCONV_PARALLEL_FIXUP_KB=0 (every parallel kernel: main + reduce);
pf_on: the one-launch path forced. Prints, per bucket of split_k * tile_m *
tile_n * 4 bytes and per family, the geometric mean of time(two) / time(one)
(> 1: the one launch is faster), the pairs, and how many were faster; then
the same split by output tiles per SM-count bucket (the grid the last splits
share).
"""
import collections
import csv
import gzip
import io
import math
import re
import subprocess
import sys


def rows(path):
    if path.endswith('.zst'):
        data = subprocess.run(['zstd', '-dc', path], check=True, capture_output=True).stdout.decode()
        f = io.StringIO(data)
    elif path.endswith('.gz'):
        f = gzip.open(path, 'rt')
    else:
        f = open(path)
    return {(r['kernel'], r['spec']): float(r['min_ms']) for r in csv.DictReader(f)
            if r['status'] == 'ok' and r['provider'] == 'gconv'}


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    by_bytes = collections.defaultdict(list)
    by_split = collections.defaultdict(list)
    for key in a.keys() & b.keys():
        k = key[0]
        m = re.search(r'_m(\d+)n(\d+)k\d+_.*_sk(\d+)p_', k)
        if not m:
            continue
        tm, tn, s = int(m.group(1)), int(m.group(2)), int(m.group(3))
        kb = s * tm * tn * 4 // 1024
        bucket = 1 << max(0, math.ceil(math.log2(max(kb, 1))))
        fam = k.split('_')[0]
        r = a[key] / b[key]
        by_bytes[(fam, bucket)].append((r, a[key]))
        by_split[(fam, s)].append((r, a[key]))
    for title, table in (('slices a tile (KB, <=)', by_bytes), ('split_k', by_split)):
        print(f'{"family":7} {title:>22} {"pairs":>6} {"two/one":>8} {"one faster":>10} {"<20us two/one":>14}')
        for (fam, key), v in sorted(table.items()):
            small = [r for r, t in v if t < 0.02]
            print(f'{fam:7} {key:>22} {len(v):>6} {gmean([r for r, _ in v]):>8.3f} '
                  f'{sum(r > 1 for r, _ in v):>10} {gmean(small):>14.3f}')
        print()


if __name__ == '__main__':
    main()
