# Issue 16's table from call 5's files (one run, one H200): cuDNN best (native API, heuristic and
# autotuned) / the wgmma family's best (the best of its kernels among M35's pick, M35's top 8 and
# the model's top 4 of the wgmma family alone), / the pool's best (the best of M35's pick and top 8,
# a lower bound of the pool's best) and / M35's pick, per direction and class (dense / grouped /
# depthwise / 3D) and cuDNN time (< 20 us, 20-100 us, >= 100 us).
import csv, gzip, math
def load(f, prov, fam=None):
    d, info = {}, {}
    for r in csv.DictReader(gzip.open(f, 'rt')):
        if r['status'] != 'ok' or (r['provider'] == 'cudnn') != (prov == 'cudnn'): continue
        if fam and not r['kernel'].startswith(fam + '_'): continue
        t = float(r['latency_ms']); s = r['spec']
        if t < d.get(s, 9e9): d[s] = t
        info[s] = r
    return d, info
cud, info = load('call5_policy_m35_public.csv.gz', 'cudnn')
pick, _ = load('call5_policy_m35_public.csv.gz', 'gconv')
top, _ = load('call5_top8_m35_public_nocudnn.csv.gz', 'gconv')
wg = [load(f, 'gconv', 'wgmma')[0] for f in ('call5_policy_m35_public.csv.gz', 'call5_top8_m35_public_nocudnn.csv.gz',
                                            'call5_wgmma_top4_public_nocudnn.csv.gz')]
best = {s: min(x[s] for x in (pick, top) if s in x) for s in cud}
wbest = {s: min(x[s] for x in wg if s in x) for s in cud if any(s in x for x in wg)}
def cls(r):
    if r['ndim'] == '3': return '3D'
    g, c = int(r['g']), int(r['c'])
    return 'dense' if g == 1 else 'depthwise' if c == g else 'grouped'
def bucket(t): return '<20us' if t < 0.02 else '20-100us' if t < 0.1 else '>=100us'
gm = lambda L: math.exp(sum(map(math.log, L)) / len(L)) if L else float('nan')
print('%-10s %-10s %-9s %5s %6s %11s %10s %10s' % ('direction', 'class', 'cuDNN', 'n', 'n wg', 'wgmma best',
                                                 'pool best', 'M35 pick'))
for d in ('fwd', 'bwd_data', 'bwd_weight', 'all'):
    for c in ('dense', 'grouped', 'depthwise', '3D', 'all'):
        for b in ('<20us', '20-100us', '>=100us', 'all'):
            S = [s for s in cud if (d == 'all' or info[s]['direction'] == d) and (c == 'all' or cls(info[s]) == c)
                 and (b == 'all' or bucket(cud[s]) == b)]
            if not S: continue
            W = [s for s in S if s in wbest]
            print('%-10s %-10s %-9s %5d %6d %11.3f %10.3f %10.3f' % (
                d, c, b, len(S), len(W), gm([cud[s] / wbest[s] for s in W]), gm([cud[s] / best[s] for s in S]),
                gm([cud[s] / pick[s] for s in S])))
print()
print('cuDNN >= 20 us        n  wgmma best  pool best  M35 pick')
for d in ('fwd', 'bwd_data', 'bwd_weight'):
    S = [s for s in cud if info[s]['direction'] == d and cud[s] >= 0.02]
    W = [s for s in S if s in wbest]
    print('%-18s %5d %11.3f %10.3f %9.3f   (wgmma over %d)' % (d, len(S), gm([cud[s] / wbest[s] for s in W]),
          gm([cud[s] / best[s] for s in S]), gm([cud[s] / pick[s] for s in S]), len(W)))
print()
worst = sorted((cud[s] / best[s], s) for s in cud)[:10]
print('worst ten (pool best): ratio, spec, cuDNN ms, pool best ms')
for r, s in worst: print('  %.3f %-62s %.4f %.4f' % (r, s, cud[s], best[s]))
print('below 0.67 (pool best): %d; below 0.67 (M35 pick): %d' % (sum(cud[s] / best[s] < 0.67 for s in cud),
                                                                   sum(cud[s] / pick[s] < 0.67 for s in cud)))
