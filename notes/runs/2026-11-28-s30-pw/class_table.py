# Issue 16's table from call 4's files: cuDNN best / the pool's best (the best of M35's picks,
# M34's picks and M35's top 8: a lower bound of the pool's best) and / M35's pick, per direction
# and class (dense / grouped / depthwise / 3D) and cuDNN time (< 20 us, 20-100 us, >= 100 us).
import csv, gzip, math, re
def load(f, prov):
    d, info = {}, {}
    for r in csv.DictReader(gzip.open(f, 'rt')):
        if r['status'] != 'ok' or (r['provider'] == 'cudnn') != (prov == 'cudnn'): continue
        t = float(r['latency_ms']); s = r['spec']
        if t < d.get(s, 9e9): d[s] = t
        info[s] = r
    return d, info
cud, info = load('call4_policy_m35_public.csv.gz', 'cudnn')
m35, _ = load('call4_policy_m35_public.csv.gz', 'gconv')
m34, _ = load('call4_policy_m34_public_nocudnn.csv.gz', 'gconv')
top, _ = load('call4_top8_m35_public_nocudnn.csv.gz', 'gconv')
best = {s: min(x[s] for x in (m35, m34, top) if s in x) for s in cud}
def cls(r):
    if r['ndim'] == '3': return '3D'
    g, c = int(r['g']), int(r['c'])
    return 'dense' if g == 1 else 'depthwise' if c == g else 'grouped'
def bucket(t): return '<20us' if t < 0.02 else '20-100us' if t < 0.1 else '>=100us'
gm = lambda L: math.exp(sum(map(math.log, L)) / len(L)) if L else float('nan')
print('%-10s %-10s %-9s %5s %10s %10s' % ('direction', 'class', 'cuDNN', 'n', 'pool best', 'M35 pick'))
for d in ('fwd', 'bwd_data', 'bwd_weight'):
    for c in ('dense', 'grouped', 'depthwise', '3D', 'all'):
        for b in ('<20us', '20-100us', '>=100us', 'all'):
            S = [s for s in cud if info[s]['direction'] == d and (c == 'all' or cls(info[s]) == c)
                 and (b == 'all' or bucket(cud[s]) == b)]
            if not S: continue
            print('%-10s %-10s %-9s %5d %10.3f %10.3f' % (d, c, b, len(S), gm([cud[s] / best[s] for s in S]),
                                                       gm([cud[s] / m35[s] for s in S])))
