# simulate.py — 2 simulated workers run a 32 x 32 wavefront and workloads/dag's random DAG of 2000
# nodes (node times 0.9-1.1, 1% at 3) under the ordering rules of docs/graph.md: "lifo" (the last
# node made ready runs next, queued ones newest first, thieves take the oldest) and "C" (the
# successor with the longest path to a sink runs next, unless the oldest queued node is more than
# TH levels higher: then that one). Prints time / ideal and swaps per run for each slack TH.
import sys, random, collections
def wavefront(s):
    n=s*s; pred=[[] for _ in range(n)]
    for i in range(s):
        for j in range(s):
            if i: pred[i*s+j].append((i-1)*s+j)
            if j: pred[i*s+j].append(i*s+j-1)
    return n,pred
def rnd(n):
    M=(1<<64)-1
    def mix(x):
        x^=x>>30; x=(x*0xBF58476D1CE4E5B9)&M; x^=x>>27; x=(x*0x94D049BB133111EB)&M; return x^(x>>31)
    pred=[[] for _ in range(n)]; s=42
    for x in range(1,n):
        s=mix(s+1); k=s%5
        for _ in range(k):
            s=mix(s+1); f=x-1-(s%(x if x<64 else 64))
            if f not in pred[x]: pred[x].append(f)
    return n,pred
def sim(n,pred,policy,P=2,lat=0.0,seed=1):
    rng=random.Random(seed)
    DUR=lambda: rng.uniform(0.9,1.1) if rng.random()>0.01 else 3.0
    succ=[[] for _ in range(n)]
    for x in range(n):
        for p in pred[x]: succ[p].append(x)
    bl=[1]*n
    for x in reversed(range(n)):
        for y in succ[x]: bl[x]=max(bl[x],1+bl[y])
    pend=[len(pred[x]) for x in range(n)]
    dq=[collections.deque() for _ in range(P)]
    t=0.0; running={}  # worker -> (end, node)
    free=list(range(P)); done=0; idle=0.0
    srcs=[x for x in range(n) if not pend[x]]
    for x in reversed(srcs): dq[0].append(x)
    nxt=[None]*P
    events=[]
    import heapq
    # each worker: when free, take: nxt (bypass) else own pop (LIFO or best) else steal oldest from other
    def take(w):
        if nxt[w] is not None: x=nxt[w]; nxt[w]=None; return x
        if dq[w]:
            if policy in ('B',): return dq[w].pop()
            if policy in ('C','D'): return dq[w].popleft() if policy=='D' else dq[w].pop()
            if policy=='lifo': return dq[w].pop()
            if policy=='fifo': return dq[w].popleft()
            if policy=='prio':
                b=max(dq[w], key=lambda x: bl[x]); dq[w].remove(b); return b
        for v in range(P):
            if v!=w and dq[v]:
                if policy=='prio':
                    b=max(dq[v], key=lambda x: bl[x]); dq[v].remove(b); return b
                return dq[v].popleft()
        return None
    heap=[]; t=0.0; busy=[False]*P
    def start_all(t):
        for w in range(P):
            if not busy[w]:
                x=take(w)
                if x is not None:
                    busy[w]=True; heapq.heappush(heap,(t+DUR(),w,x))
    start_all(0.0)
    while heap:
        t,w,x=heapq.heappop(heap); busy[w]=False; done+=1
        ready=[]
        for y in succ[x]:
            pend[y]-=1
            if pend[y]==0: ready.append(y)
        if ready:
            if policy in ('B','C','D'):
                ready.sort(key=lambda y: bl[y]); best=ready[-1]
                if policy!='B' and dq[w] and bl[dq[w][0]]>bl[best]+TH[0]:
                    CNT[0]+=1
                    for y in ready: dq[w].append(y)
                    nxt[w]=dq[w].popleft()
                else:
                    for y in ready[:-1]: dq[w].append(y)
                    nxt[w]=best
            elif policy=='prio':
                ready.sort(key=lambda y: bl[y])
                best=ready[-1]
                if dq[w] and max(bl[z] for z in dq[w])>bl[best]:
                    for y in ready: dq[w].append(y)
                else:
                    for y in ready[:-1]: dq[w].append(y)
                    nxt[w]=best
            else:
                for y in ready[:-1]: dq[w].append(y)
                nxt[w]=ready[-1]
        start_all(t)
    return t

import statistics
CNT=[0]; TH=[0]

for th in (0,1,2,4,8,16):
    TH[0]=th
    for name,(n,pred) in [('wave32',wavefront(32)),('rand2000',rnd(2000))]:
        CNT[0]=0
        r=round(statistics.mean(sim(n,pred,'C',seed=k) for k in range(20))/(n*1.02/2),4)
        print(th, name, r, 'swaps/run', CNT[0]/20)
