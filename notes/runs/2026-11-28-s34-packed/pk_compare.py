"""Per problem: cuDNN best (native provider), the model's top 8 without the packed
kernels ('old'), every packed kernel ('pk'), from one call's sweeps.

    python3 pk_compare.py CALL SET... (CALL 1 or 2; SET hold, train)
"""
import csv,gzip,sys,math
def load(f):
    return [r for r in csv.DictReader(gzip.open(f,'rt')) if r['status']=='ok']
def best(rows, pred):
    b={}
    for r in rows:
        if not pred(r): continue
        t=float(r['latency_ms']); s=r['spec']
        if s not in b or t<b[s][0]: b[s]=(t,r['kernel'] or r['provider'])
    return b
CALL=sys.argv[1]
for set_ in sys.argv[2:]:
    top=load(f'call{CALL}_pk_{set_}_top.csv.gz'); new=load(f'call{CALL}_pk_{set_}_new.csv.gz')
    cud=best(top, lambda r: r['provider']!='gconv')
    old=best(top, lambda r: r['provider']=='gconv')
    pk=best(new, lambda r: True)
    specs=sorted(old)
    lr=[];lc0=[];lc1=[]
    rows=[]
    for s in specs:
        if s not in pk: continue
        o=old[s][0]; p=pk[s][0]; n=min(o,p)
        lr.append(math.log(o/n))
        if s in cud:
            c=cud[s][0]; lc0.append(math.log(c/o)); lc1.append(math.log(c/n))
        rows.append((o/p, s, cud.get(s,(float('nan'),''))[0]*1e3, o*1e3, p*1e3, old[s][1], pk[s][1]))
    g=lambda l: math.exp(sum(l)/len(l)) if l else float('nan')
    print(f'{set_}: {len(lr)} problems; pool best before/after {g(lr):.3f}; packed wins {sum(1 for r in rows if r[0]>1)}; cuDNN/pool before {g(lc0):.3f} after {g(lc1):.3f} ({len(lc0)})')
    rows.sort()
    for r in rows: print('  %.2f %-58s cudnn %6.1f old %6.1f pk %6.1f %s | %s'%r)
