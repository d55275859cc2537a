#!/usr/bin/env python3
"""Sums a GPUPROBE_TRACE timeline (stderr of a traced run) by step: the seconds from each step of
the main process to its next, grouped by the step's text with numbers and point labels folded."""
import sys,re,collections
lines=[l for l in open(sys.argv[1]) if l.startswith('gpuprobe-trace')]
ev=[]
for l in lines:
    m=re.match(r'gpuprobe-trace (\d+) ([\d.]+): (.*)',l.strip())
    ev.append((int(m[1]),float(m[2]),m[3]))
main=ev[0][0]
# durations between consecutive main-process events, grouped by the event starting the gap
gaps=collections.defaultdict(float)
mev=[e for e in ev if e[0]==main]
for a,b in zip(mev,mev[1:]):
    key=re.sub(r'round \d+ .*','round <point>',a[2]); key=re.sub(r'\d+','N',key)
    gaps[key]+=b[1]-a[1]
for k,v in sorted(gaps.items(), key=lambda kv:-kv[1]): print(f"{v:8.3f} s  after '{k}'")
print('main total', mev[-1][1])
