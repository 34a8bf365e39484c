import csv,gzip,math,collections,re,sys
def load(f):
    return [r for r in csv.DictReader(gzip.open(f,'rt')) if r['status']=='ok']
def gm(v): return math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
for st in sys.argv[1:]:
    top=load(f'dr_{st}_top.csv.gz'); new=load(f'dr_{st}_new.csv.gz')
    old=collections.defaultdict(lambda:9e9); cud=collections.defaultdict(lambda:9e9); nb=collections.defaultdict(lambda:(9e9,''))
    for r in top:
        t=float(r['latency_ms'])
        if r['provider']=='cudnn': cud[r['spec']]=min(cud[r['spec']],t)
        else: old[r['spec']]=min(old[r['spec']],t)
    for r in new:
        t=float(r['latency_ms'])
        if t<nb[r['spec']][0]: nb[r['spec']]=(t,r['kernel'])
    specs=[s for s in nb if s in old]
    print(f"== {st}: {len(specs)} problems with new rows; new best faster on {sum(nb[s][0]<old[s] for s in specs)}")
    r=[old[s]/min(old[s],nb[s][0]) for s in specs]
    print('  pool best gain', round(gm(r),4))
    for d in ['fwd','bwd_data']:
        v=[old[s]/min(old[s],nb[s][0]) for s in specs if s.startswith(d+'_')]
        print('  ',d,len(v),round(gm(v),4))
    if cud:
        cs=[s for s in specs if s in cud]
        for lo,hi in [(0,0.02),(0.02,0.1),(0.1,9)]:
            v=[s for s in cs if lo<=cud[s]<hi]
            if v: print(f'  cuDNN {lo}-{hi} ms: n={len(v)} cudnn/old {gm([cud[s]/old[s] for s in v]):.3f} -> cudnn/new {gm([cud[s]/min(old[s],nb[s][0]) for s in v]):.3f}')
        print(f'  all: cudnn/old {gm([cud[s]/old[s] for s in cs]):.3f} -> {gm([cud[s]/min(old[s],nb[s][0]) for s in cs]):.3f}')
    wins=collections.Counter(re.sub(r'_bf16_\dd','',nb[s][1]) for s in specs if nb[s][0]<old[s])
    print('  winners:',wins.most_common(10))
    specs.sort(key=lambda s:-old[s]/nb[s][0])
    for s in specs[:8]: print(f'   {s:58s} old {old[s]*1000:7.2f} new {nb[s][0]*1000:7.2f} {nb[s][1]}')
