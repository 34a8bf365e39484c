# Simulates the producer/consumer ring of src/kernels/wgmma/wgmma.cuh (one producer, one consumer):
# publishing a stage LAG tiles after its copies were issued deadlocks for LAG = stages - 1 and not for
# LAG = stages - 2 (run: python3 ring_protocol_sim.py; prints the outcome per (stages, LAG) over 0..39 tiles).
# Simulates the producer/consumer protocol of wgmma.cuh (one producer, one consumer).
def run(S, LAG, ktiles):
    full_done = [0]*S; empty_done = [0]*S   # completed phases per barrier
    # producer state
    p = {'kt':0, 'w':(0,0), 'pub':(0,0), 'drain':None, 'done':False}
    c = {'kt':0, 'rd':(0,0), 'rel':(0,0), 'done':False}
    def nxt(r): s,ph = r; s+=1; return (0,ph^1) if s==S else (s,ph)
    def waitok(done, s, parity):  # phase with parity completed?
        # phases completed = done[s]; phase k has parity k&1; completed if done[s] > k where k is the latest phase with that parity... use: waiting on parity P returns when current phase parity != P
        return (done[s] & 1) != parity
    steps=0
    while not (p['done'] and c['done']):
        steps+=1
        if steps>10000: return 'DEADLOCK'
        progressed=False
        if not p['done']:
            kt=p['kt']
            if kt<ktiles:
                s,ph=p['w']
                if kt>=S and not waitok(empty_done,s,ph^1):
                    pass
                else:
                    p['w']=nxt(p['w'])
                    if kt>=LAG:
                        full_done[p['pub'][0]]+=1; p['pub']=nxt(p['pub'])
                    p['kt']+=1; progressed=True
            else:
                for k in range(max(0,ktiles-LAG), ktiles):
                    full_done[p['pub'][0]]+=1; p['pub']=nxt(p['pub'])
                p['done']=True; progressed=True
        if not c['done']:
            kt=c['kt']
            if kt<ktiles:
                s,ph=c['rd']
                if waitok(full_done,s,ph):
                    c['rd']=nxt(c['rd'])
                    if kt>0:
                        empty_done[c['rel'][0]]+=1; c['rel']=nxt(c['rel'])
                    c['kt']+=1; progressed=True
            else:
                c['done']=True; progressed=True
        if not progressed: return 'DEADLOCK'
    return 'ok'
for S in range(2,9):
    for LAG in (S-1, max(S-2,0)):
        res={run(S,LAG,k) for k in range(0,40)}
        print(S,LAG,res)
