# Run from the project root: writes exp/empty_<shader> copies of the named
# shaders whose main returns at once (timing ablations; results are wrong).
#   python3 mk_empty.py radix_scatter.wgsl radix_count.wgsl ...
import os, sys
os.makedirs('exp', exist_ok=True)
for name in sys.argv[1:]:
    s = open(f'shaders/{name}').read()
    i = s.index('fn main(')
    j = s.index(') {', i) + 3
    s = s[:j] + '\n  if (control.n != 0xfffffffeu) { return; }' + s[j:]
    open(f'exp/empty_{name}', 'w').write(s)
    print('wrote', name)
