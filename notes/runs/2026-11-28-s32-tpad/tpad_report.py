#!/usr/bin/env python3
"""Tap-padded wgmma TMA kernels (wgmma/tma.hpp tap_k): per problem, native cuDNN best,
the pool's best before (the model's top 16 without the newly admitted TMA kernels) and
after (with every wgmma TMA kernel), same run.

    python3 tpad_report.py tp_pub_top.csv.gz tp_pub_tma.csv.gz
"""
import csv, gzip, math, sys, collections

def rows(p):
    with gzip.open(p, 'rt') as f:
        return [r for r in csv.DictReader(f) if r['status'] == 'ok']

def gm(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')

top, tma = rows(sys.argv[1]), rows(sys.argv[2])
cud, before, after, new_k = {}, {}, {}, {}
def upd(d, k, t):
    if k not in d or t < d[k]: d[k] = t
for r in top + tma:
    key = r['spec']
    t = float(r['min_ms'])
    if r['provider'] != 'gconv':
        upd(cud, key, t); continue
    # Kernels the change admits: wgmma TMA (not staged: realign) on these problems.
    admitted = r['kernel'].startswith('wgmma_') and '_tma' in r['kernel'] and not r['kernel'].endswith('_ra')
    if not admitted: upd(before, key, t)
    if key not in after or t < after[key]:
        after[key] = t; new_k[key] = r['kernel']
by = collections.defaultdict(lambda: ([], [], []))
out = []
for k in sorted(after):
    if k not in cud or k not in before: continue
    d = k.split('_bf16')[0]
    b, a = cud[k] / before[k], cud[k] / after[k]
    by[d][0].append(b); by[d][1].append(a); by[d][2].append(before[k] / after[k])
    out.append((before[k] / after[k], k, cud[k], before[k], after[k], new_k[k]))
print('direction  n  cuDNN/before  cuDNN/after  before/after')
for d, (b, a, s) in sorted(by.items()):
    print(f'{d:9} {len(b):3} {gm(b):12.3f} {gm(a):12.3f} {gm(s):12.3f}')
allb = [x for v in by.values() for x in v[0]]; alla = [x for v in by.values() for x in v[1]]
print(f'{"all":9} {len(allb):3} {gm(allb):12.3f} {gm(alla):12.3f} {gm([x for v in by.values() for x in v[2]]):12.3f}')
print('\nper problem (before/after, spec, cuDNN ms, before ms, after ms, best kernel):')
for o in sorted(out, reverse=True):
    print('%.3f %-58s %.4f %.4f %.4f %s' % o)
