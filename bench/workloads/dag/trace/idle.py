# idle.py TRACE_FILE — idle time per run of a traced dependency-graph benchmark (README.md).
# A block is the median node time; runs 0-4 are skipped (warm-up). "idle with ready work":
# the integral of min(idle workers, nodes ready but not started); the rest: nothing ready.
import sys, statistics as st
f = open(sys.argv[1]); n, reps = map(int, f.readline().split())
pred = [list(map(int, f.readline().split()))[1:] for _ in range(n)]
recs = [tuple(map(int, l.split())) for l in f]
dur = st.median(r[1]-r[0] for r in recs)
skip=5; R_=range(skip,reps)
viol=0; idle=0; span=0; busy=0; gaps=[]; startidle=0; endidle=0
for r in R_:
    R = recs[r*n:(r+1)*n]
    s0 = min(x[0] for x in R); e1 = max(x[1] for x in R)
    span += e1-s0; busy += sum(x[1]-x[0] for x in R)
    ev = []
    for i,x in enumerate(R):
        ready = max((R[p][1] for p in pred[i]), default=s0)
        ev.append((ready, 'p', 1)); ev.append((x[0], 'p', -1))
        ev.append((x[0], 'b', 1)); ev.append((x[1], 'b', -1))
    ev.sort()
    pend=0; bz=0; t=s0
    for (tt, k, d) in ev:
        if tt > t:
            idl = 2 - bz
            viol += (tt-t)*min(idl, pend); idle += (tt-t)*idl
        t = tt
        if k=='p': pend+=d
        else: bz+=d
    # gaps per worker
    byw={}
    for x in R: byw.setdefault(x[2],[]).append(x)
    for w,L in byw.items():
        L.sort()
        for a,b in zip(L,L[1:]):
            g=b[0]-a[1]
            if g>0.2*dur: gaps.append(g/dur)
    first = sorted(x[0] for x in R)[:2]; startidle += first[1]-first[0]
nr=len(R_)
print(f"per run (blocks): span {span/nr/dur:.1f} busy/2 {busy/nr/2/dur:.1f} idle {idle/nr/dur:.1f} of which idle-with-ready-work {viol/nr/dur:.1f}; 2nd worker start lag {startidle/nr/dur:.2f}; gaps>0.2blk per run {len(gaps)/nr:.1f}, mean {st.mean(gaps) if gaps else 0:.2f}")
# where is idle without ready work: by decile of run span; and by the number of nodes done
hist=[0]*10
for r in R_:
    R = recs[r*n:(r+1)*n]
    s0 = min(x[0] for x in R); e1 = max(x[1] for x in R)
    ev=[]
    for i,x in enumerate(R):
        ready = max((R[p][1] for p in pred[i]), default=s0)
        ev += [(ready,'p',1),(x[0],'p',-1),(x[0],'b',1),(x[1],'b',-1)]
    ev.sort(); pend=0; bz=0; t=s0
    for (tt,k,d) in ev:
        if tt>t and pend==0 and bz<2:
            hist[min(9,int(10*(t-s0)/(e1-s0)))] += (tt-t)*(2-bz)
        t=tt
        if k=='p': pend+=d
        else: bz+=d
print("idle w/o ready work by decile (blocks/run):", [round(h/nr/dur,2) for h in hist])
