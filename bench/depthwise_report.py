#!/usr/bin/env python3
"""Depthwise report: per direction, cuDNN best / gconv's best direct tile kernel,
best register-window kernel (names with _w<FX>s<SX>) and best of both, plus the
median fraction of the copy roofline (input + filter + output bytes once at
4.26 TB/s, the H200's measured copy bandwidth) each reaches.

usage: bench/depthwise_report.py SWEEP.csv[.zst] CUDNN.jsonl|- [-v]
  SWEEP: `gconv bench` rows of the depthwise problems (device_call.sh dwsweep)
  CUDNN: bench/cudnn_torch.py output for the same problems, or - for the sweep's own
         cuDNN rows (`gconv bench --provider gconv,cudnn`); -v lists every problem.
"""
import csv,io,subprocess,collections,math,json,sys
if len(sys.argv) < 3: sys.exit(__doc__)
f=sys.argv[1]; cj=sys.argv[2]
text=subprocess.run(['zstd','-dc',f],capture_output=True,text=True).stdout if f.endswith('.zst') else open(f).read()
rows=list(csv.DictReader(io.StringIO(text)))
cud={}
for l in (open(cj) if cj != '-' else []):
    j=json.loads(l)
    if 'about' in j: continue
    key=(j['direction'],j['C'],tuple(j['spatial']),tuple(j['kernel']),tuple(j['stride']),j['N'])
    cud[key]=j
best=collections.defaultdict(dict)
native={}  # spec -> best cuDNN time of the sweep's own provider rows
for r in rows:
    if r['status']=='ok' and r['family']=='cudnn':
        native[r['spec']]=min(native.get(r['spec'],1e9), float(r['latency_ms']))
for r in rows:
    if r['status']!='ok' or r['family']=='cudnn': continue
    kind='win' if '_w' in r['kernel'].split('_v')[-1] else 'tile'
    t=float(r['latency_ms'])
    s=r['spec']
    if t < best[s].get(kind,(1e9,))[0]: best[s][kind]=(t,r['kernel'])
    best[s]['row']=r
bw=4.26e12
out=collections.defaultdict(list)
for s,b in best.items():
    r=b['row']; C=int(r['c']); n=int(r['n'])
    if not (int(r['g']) == C == int(r['k'])): continue  # depthwise only
    nd=int(r['ndim'])
    sp=tuple(int(r[x]) for x in (['d','h','w'][3-nd:]))
    ker=tuple(int(r[x]) for x in (['z','y','x'][3-nd:]))
    st=tuple(int(r[x]) for x in (['stride_d','stride_h','stride_w'][3-nd:]))
    key=(r['direction'],C,sp,ker,st,n)
    if cj == '-':
        if s not in native: continue
        c=native[s]
    else:
        j=cud.get(key)
        if not j: continue
        c=min(j.get('exh_ms') or 1e9, j.get('heur_ms') or 1e9)
    ins=1
    for v in sp: ins*=v
    def o(i,fl,s_,pl,ph,d): return (i+pl+ph-d*(fl-1)-1)//s_+1
    outs=o(int(r['h']),int(r['y']),int(r['stride_h']),int(r['pad_h_lo']),int(r['pad_h_hi']),int(r['dil_h']))*o(int(r['w']),int(r['x']),int(r['stride_w']),int(r['pad_w_lo']),int(r['pad_w_hi']),int(r['dil_w']))
    byt=2*(n*ins*C+n*outs*C+C*ker[0]*ker[-1])
    roof=byt/bw*1e3
    w=b.get('win',(1e9,''))[0]; t=b.get('tile',(1e9,''))[0]
    out[r['direction']].append((s,c,t,w,roof, b.get('win',(0,''))[1]))
for d,l in sorted(out.items()):
    gm=lambda xs: math.exp(sum(math.log(x) for x in xs)/len(xs)) if xs else float('nan')
    med=lambda xs: sorted(xs)[len(xs)//2] if xs else float('nan')
    tl=[x for x in l if x[2] < 1e9]; wl=[x for x in l if x[3] < 1e9]
    print(d,len(l),'cudnn/tile %.3f (%d) cudnn/win %.3f (%d) cudnn/best %.3f | roof median: tile %.3f win %.3f best %.3f cudnn %.3f'%(
      gm([x[1]/x[2] for x in tl]), len(tl), gm([x[1]/x[3] for x in wl]), len(wl), gm([x[1]/min(x[2],x[3]) for x in l]),
      med([x[4]/x[2] for x in tl]), med([x[4]/x[3] for x in wl]), med([x[4]/min(x[2],x[3]) for x in l]), med([x[4]/x[1] for x in l])))
    if '-v' in sys.argv:
      for x in sorted(l,key=lambda x:x[1]/min(x[2],x[3])):
        print('   %-58s cudnn %.4f tile %.4f win %.4f roof %.4f %s'%x)
