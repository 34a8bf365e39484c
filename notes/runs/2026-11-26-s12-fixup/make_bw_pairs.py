import csv, sys
from collections import defaultdict
sys.path.insert(0,'bench')
from sweep_io import open_text
sweeps=['data/sweeps/h200_bf16_public_providers.csv.zst','data/sweeps/h200_bf16_public_wgmma.csv.zst','data/sweeps/h200_bf16_public_cluster.csv.zst']
times=defaultdict(dict)
for sw in sweeps:
    for row in csv.DictReader(open_text(sw)):
        if row['status']!='ok' or row.get('provider','gconv')!='gconv' or not row['spec'].startswith('bwd_weight'): continue
        k=row['kernel']; t=float(row['latency_ms']); d=times[row['spec']]
        if k not in d or t<d[k]: d[k]=t
n=0
with open(sys.argv[1],'w',newline='') as f:
    w=csv.writer(f); w.writerow(['kernel','spec'])
    for spec,d in sorted(times.items()):
        for k,_ in sorted(d.items(), key=lambda x:x[1])[:3]: w.writerow([k,spec]); n+=1
print(len(times), n)
