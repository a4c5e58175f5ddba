import json,collections,sys
rows=collections.defaultdict(lambda: collections.defaultdict(list)); ph={}
for line in open(sys.argv[1]):
    name,_,js=line.partition(' ')
    if not line.startswith('{'):
        if not js.startswith('{'): continue
    else: name,js='',line
    r=json.loads(js)
    if r.get('impl')!='gpu-radix': continue
    nm=(name+':' if name else '')+r['config']
    k=(r['n'],r['keyBits'])
    if 'verified' in r: print('verify',nm,k,r['verified'],r['ms']); continue
    if r.get('countMs') is not None: ph[(nm,k)]=(r['ms'],r['countMs'],r['scanMs'],r['scatterMs'])
    else: rows[k][nm].append(r['ms'])
for k,v in sorted(rows.items()):
    print(k,'  '.join(f"{n}={'/'.join('%.4f'%x for x in ms)}" for n,ms in v.items()))
for k,v in sorted(ph.items(), key=lambda x:(x[0][1],x[0][0])): print(k, 'total count scan scatter', ' '.join('%.4f'%x for x in v))
