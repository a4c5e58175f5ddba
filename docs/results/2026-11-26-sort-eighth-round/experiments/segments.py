# Sums ncu's per-instruction source counters (ncu --page source --csv --print-source sass) between
# barriers: stall samples, instructions and shared-memory wavefronts of each barrier-delimited
# segment of the kernel. Usage: python3 segments.py src-sass.csv
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
def g(r, k):
    try: return float(r[ix[k]])
    except ValueError: return 0.0
segs, cur = [], None
def new(): return {'samp': 0, 'inst': 0, 'wf': 0, 'wfx': 0, 'first': None, 'ops': {}}
cur = new()
for r in data:
    src = r[ix['Source']].strip()
    if cur['first'] is None: cur['first'] = r[ix['Address']][-5:]
    cur['samp'] += g(r, 'Warp Stall Sampling (All Samples)'); cur['inst'] += g(r, 'Instructions Executed')
    cur['wf'] += g(r, 'L1 Wavefronts Shared'); cur['wfx'] += g(r, 'L1 Wavefronts Shared Excessive')
    parts = src.split()
    op = (parts[1] if parts and parts[0].startswith('@') else parts[0] if parts else '').split('.')[0]
    cur['ops'][op] = cur['ops'].get(op, 0) + g(r, 'Instructions Executed')
    if 'BAR.SYNC' in src or src.startswith('EXIT'):
        segs.append(cur); cur = new()
segs.append(cur)
S = sum(s['samp'] for s in segs); T = sum(s['inst'] for s in segs)
tiles = 4096; warps = 8
print('segment  start  stall samples  instructions  shared wavefronts/tile  of which conflicts  top instructions per thread and tile')
for i, s in enumerate(segs):
    if not s['inst']: continue
    top = sorted(s['ops'].items(), key=lambda x: -x[1])[:6]
    print(f"{i:7d}  {s['first']}  {100*s['samp']/S:12.1f} %  {100*s['inst']/T:10.1f} %  {s['wf']/tiles:22.0f}  {s['wfx']/tiles:18.0f}  " + ' '.join(f"{o}:{v/tiles/warps:.0f}" for o, v in top))
