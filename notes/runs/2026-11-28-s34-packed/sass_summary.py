import csv,gzip,sys,io,collections
lines=gzip.open(sys.argv[1],'rt').read().splitlines()
i=[k for k,l in enumerate(lines) if l.startswith('"Address"')][0]
rows=list(csv.DictReader(io.StringIO('\n'.join(lines[i:]))))
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
tot_s=sum(num(r['Warp Stall Sampling (All Samples)']) for r in rows)
tot_i=sum(num(r['Instructions Executed']) for r in rows)
print('instructions executed (warp-level):',tot_i,' samples',tot_s)
stall_cols=[c for c in rows[0] if c.startswith('stall_') and 'Not Issued' not in c]
agg=collections.Counter()
for r in rows:
    for c in stall_cols: agg[c]+=num(r[c])
print('stalls:',[(c,int(v)) for c,v in agg.most_common(8)])
# top instructions by samples
top=sorted(rows,key=lambda r:-num(r['Warp Stall Sampling (All Samples)']))[:int(sys.argv[2]) if len(sys.argv)>2 else 25]
for r in top:
    st=sorted(((num(r[c]),c) for c in stall_cols),reverse=True)[:2]
    print('%6d %8d  %-60s %s'%(num(r['Warp Stall Sampling (All Samples)']),num(r['Instructions Executed']),r['Source'][:60],st))
