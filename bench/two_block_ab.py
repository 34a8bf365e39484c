#!/usr/bin/env python3
"""Two-block stages (tile_k 128) against tile_k 64, from one `gconv bench --pairs` sweep.

  two_block_ab.py SWEEP.csv.gz

For every problem and (tile_m, tile_n, split) the sweep timed at both tile_k:
the ratio of the fastest tile_k 64 kernel to the fastest tile_k 128 kernel
(> 1: the two-block stage is faster), geometric means per direction and per
tile; then, per problem, its best time without / with the tile_k 128 kernels;
then the 15 problems where tile_k 128 gained most, with cuDNN's best of the
same run (ms x 1000 = us). Standard library only.
"""
import csv,gzip,re,sys,collections,math
rows=list(csv.DictReader(gzip.open(sys.argv[1],'rt')))
t=collections.defaultdict(dict)
cud=collections.defaultdict(lambda: 1e9)
for r in rows:
    if r['status']!='ok': continue
    ms=float(r['latency_ms'])
    if r['provider']!='gconv': cud[r['spec']]=min(cud[r['spec']],ms); continue
    t[r['spec']][r['kernel']]=ms
pat=re.compile(r'wgmma_(\w+?)_(bf16|fp16)_(\d)d_m(\d+)n(\d+)k(\d+)_c(\d)_s(\d)_sk(\w+?)_v8_tma')
def gm(x): return math.exp(sum(map(math.log,x))/len(x)) if x else float('nan')
bydir=collections.defaultdict(list); best=collections.defaultdict(list); tile=collections.defaultdict(list)
for spec,ks in t.items():
    k64={}; k128={}
    for k,ms in ks.items():
        m=pat.match(k)
        if not m: continue
        d,dt,nd,tm,tn,tk,c,s,sk=m.groups()
        key=(tm,tn,sk)
        (k128 if tk=='128' else k64).setdefault(key,[]).append(ms)
    for key in k64:
        if key in k128:
            r=min(k64[key])/min(k128[key]); bydir[spec.split('_bf16')[0].split('_fp16')[0]].append(r); tile[key[:2]].append(r)
    all128=[ms for k,ms in ks.items() if 'k128' in k]; allold=[ms for k,ms in ks.items() if 'k128' not in k]
    if all128 and allold:
        best[spec.split('_bf16')[0].split('_fp16')[0]].append(min(allold)/min(min(allold),min(all128)))
for d,v in sorted(bydir.items()): print('same tile+split, tk64 best / tk128 best', d, len(v), round(gm(v),3), 'faster', sum(x>1.0 for x in v))
for d,v in sorted(tile.items()): print(' tile',d,len(v),round(gm(v),3))
for d,v in sorted(best.items()): print('problem best without / with tk128', d, len(v), round(gm(v),3))
print()
lst=[]
for spec,ks in t.items():
    for k,ms in ks.items():
        if 'k128' not in k: continue
        m=pat.match(k); d,dt,nd,tm,tn,tk,c,s,sk=m.groups()
        tw=[v for kk,v in ks.items() if kk.startswith(f"wgmma_{d}_{dt}_{nd}d_m{tm}n{tn}k64_c1_") and kk.endswith(f"_sk{sk}_v8_tma")]
        if tw: lst.append((min(tw)/ms, spec, k, ms, min(tw), min(ks.values()), cud.get(spec)))
lst.sort()
# ratio, spec, kernel, its us, the tile_k 64 twin's us, the best us, cuDNN us
for x in lst[-15:]: print(round(x[0],3), x[1], x[2].replace('wgmma_',''), round(x[3]*1000,1), round(x[4]*1000,1), 'best', round(x[5]*1000,1), 'cudnn', round(x[6]*1000,1) if x[6] else None)
