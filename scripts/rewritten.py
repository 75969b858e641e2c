#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# How much of the series rewrites itself: the lines written by one patch
# and changed or removed by a later one (git blame of each removed line in
# the parent of the patch that removes it), and the pairs where a patch
# rewrites more than half of the lines an earlier one added.
#
#   rewritten.py TREE BASE TIP      (make rewritten: build/linux base series)
import subprocess, sys, re, collections
tree, base, tip = sys.argv[1], sys.argv[2], sys.argv[3]
def git(*a): return subprocess.run(['git','-C',tree]+list(a),capture_output=True,text=True,check=True).stdout
commits = git('rev-list','--reverse',f'{base}..{tip}').split()
idx = {c:i+1 for i,c in enumerate(commits)}
total = 0
per = collections.Counter()
for c in commits:
    diff = git('diff','-U0',f'{c}^',c)
    f = None
    for line in diff.splitlines():
        if line.startswith('--- a/'): f = line[6:]
        elif line.startswith('--- /dev/null'): f = None
        m = re.match(r'@@ -(\d+)(?:,(\d+))? ', line)
        if m and f:
            start, n = int(m.group(1)), int(m.group(2) or 1)
            if n == 0: continue
            bl = git('blame','--porcelain','-L',f'{start},{start+n-1}',f'{c}^','--',f)
            for b in bl.splitlines():
                mm = re.match(r'^([0-9a-f]{40}) \d+ \d+', b)
                if mm and mm.group(1) in idx:
                    total += 1
                    per[(idx[mm.group(1)], idx[c])] += 1
added = {}
for c in commits:
    added[idx[c]] = sum(int(l.split()[0]) for l in git('diff','--numstat',f'{c}^',c).splitlines() if l.split()[0] != '-')
print(f'{total} lines written by a patch of the series are changed or removed by a later one')
for (a,b),n in sorted(per.items()):
    if n * 2 > added[a]:
        print(f'  over half: patch {b} rewrites {n} of the {added[a]} lines of patch {a}')
