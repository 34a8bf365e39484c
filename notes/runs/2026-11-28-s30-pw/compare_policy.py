import csv,gzip,math,sys
def load(f,prov=None):
    d={}
    for r in csv.DictReader(gzip.open(f,'rt')):
        if r['status']!='ok': continue
        if prov and r['provider']!=prov: continue
        if not prov and r['provider']!='gconv': continue
        t=float(r['latency_ms']); s=r['spec']
        if t<d.get(s,(9e9,))[0]: d[s]=(t,r['kernel'])
    return d
cud=load('call4_policy_m35_public.csv.gz','cudnn'); m35=load('call4_policy_m35_public.csv.gz'); m34=load('call4_policy_m34_public_nocudnn.csv.gz'); top=load('call4_top8_m35_public_nocudnn.csv.gz')
g=lambda L: math.exp(sum(math.log(x) for x in L)/len(L))
best={s:min([x for x in (m35.get(s),m34.get(s),top.get(s)) if x]) for s in cud}
for name,dd in (('M35',m35),('M34',m34),('poolbest',best)):
    out=[]
    for d in ('fwd','bwd_data','bwd_weight',''):
        S=[s for s in cud if s.startswith(d) and s in dd]
        out.append('%s %.3f'%(d or 'all', g([cud[s][0]/dd[s][0] for s in S])))
        if d=='':
            sm=[s for s in S if cud[s][0]<0.02]; lg=[s for s in S if cud[s][0]>=0.02]
            out.append('<20us %.3f (%d) >=20us %.3f'%(g([cud[s][0]/dd[s][0] for s in sm]),len(sm),g([cud[s][0]/dd[s][0] for s in lg])))
            for d2 in ('fwd','bwd_data','bwd_weight'):
                L=[s for s in lg if s.startswith(d2)]; out.append('>=20 %s %.3f'%(d2,g([cud[s][0]/dd[s][0] for s in L])))
    print(name,' | '.join(out))
S=[s for s in cud if s in m34 and s in m35]
print('M34/M35 time ratio', g([m34[s][0]/m35[s][0] for s in S]))
pwpicks=[s for s in m35 if m35[s][1].startswith('pw_')]
print('M35 picks pw on', len(pwpicks), 'problems; ratio on them M34/M35', g([m34[s][0]/m35[s][0] for s in pwpicks if s in m34]))
worst=sorted((cud[s][0]/best[s][0],s,cud[s][0],best[s][0],best[s][1]) for s in cud)
print('below 0.67 pool best:', sum(1 for w in worst if w[0]<0.67), ' with M35 picks:', sum(1 for s in cud if cud[s][0]/m35[s][0]<0.67))
for w in worst[:10]: print('%.3f %-58s cudnn %.4f gconv %.4f %s'%w)
