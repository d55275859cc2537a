#!/usr/bin/env python3
# A GPUPROBE_TRACE file split by step: seconds after each kind of trace line, for the round
# processes together and for the main process. Usage: trace_steps.py TRACE
import sys, re, collections
lines=[l.split(None,3) for l in open(sys.argv[1])]
pids=collections.OrderedDict()
for l in lines:
    pids.setdefault(l[1],[]).append((float(l[2].rstrip(':')), l[3].strip()))
main=list(pids)[0]
def agg(pidlist, label):
    tot=collections.Counter(); cnt=collections.Counter()
    for p in pidlist:
        ev=pids[p]
        for (t,w),(t2,w2) in zip(ev,ev[1:]):
            k=re.sub(r'round \d+ (pageable|pinned|wc|registered) \S+ (\d+ \w+)', r'visit \2', w)
            k=re.sub(r'\d+','N',k) if not k.startswith('visit') else k
            tot[k]+=t2-t; cnt[k]+=1
    print(label)
    for k,v in tot.most_common(25): print(f"  {v:7.3f} s {cnt[k]:5d}  after {k}")
agg([p for p in pids if p!=main],'children')
agg([main],'main')
