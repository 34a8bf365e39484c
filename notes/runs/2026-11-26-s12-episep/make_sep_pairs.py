import csv, sys
from collections import defaultdict
sys.path.insert(0,'bench')
from sweep_io import open_text
sep=set(open('/tmp/sep_names.txt').read().split())
sweeps=['data/sweeps/h200_bf16_public_providers.csv.zst','data/sweeps/h200_bf16_public_wgmma.csv.zst','data/sweeps/h200_bf16_public_cluster.csv.zst']
times=defaultdict(dict)
for sw in sweeps:
    for row in csv.DictReader(open_text(sw)):
        if row['status']!='ok' or row.get('provider','gconv')!='gconv': continue
        k=row['kernel']; t=float(row['latency_ms']); d=times[row['spec']]
        if k not in d or t<d[k]: d[k]=t
pairs=set(); nprob=0
for spec,d in times.items():
    ranked=sorted(d.items(), key=lambda x:x[1])
    s=[k for k,_ in ranked if k in sep]
    if not s: continue
    best=ranked[0][1]
    if d[s[0]] > 1.5*best: continue
    nprob+=1
    for k in s[:3]: pairs.add((k,spec))
    for k,_ in ranked[:2]: pairs.add((k,spec))
with open(sys.argv[1],'w',newline='') as f:
    w=csv.writer(f); w.writerow(['kernel','spec'])
    for k,spec in sorted(pairs, key=lambda x:(x[1],x[0])): w.writerow([k,spec])
from collections import Counter
print(nprob, len(pairs), Counter(sp.split('_bf16')[0] for _,sp in pairs))
