# Splits what Dawn prints with its dump_shaders toggle into one SPIR-V module per radix
# shader (named by what its WGSL declares) and assembles each with spirv-as (SPIRV-Tools).
# The maximal-reconvergence mode Dawn asks of NVIDIA drivers is left out: SPIRV-Tools 2023.1
# does not know it. Usage: python3 extract-spirv.py dump.txt outdir
import re, sys, subprocess, os
text = open(sys.argv[1]).read()
outdir = sys.argv[2]; os.makedirs(outdir, exist_ok=True)
n = 0
for part in text.split('// Dumped WGSL:')[1:]:
    if '/* Dumped SPIRV disassembly */' not in part: continue
    wgsl, spv = part.split('/* Dumped SPIRV disassembly */', 1)
    lines = []
    for l in spv.splitlines():
        if l.startswith('{') or l.startswith('warning') or l.startswith('error') or l.startswith('// Dumped'): break
        if 'MaximallyReconvergesKHR' in l or 'SPV_KHR_maximal_reconvergence' in l: continue
        if l.strip() == '' or l.startswith(' ') or l.startswith(';') or l.startswith('%') or l.startswith('Op'):
            lines.append(l)
    name = 'unknown'
    for key, nm in (('subgroup_hist', 'scatter_subgroup'), ('shared_words', 'scatter'), ('quad_starts', 'scan'), ('const COPIES: u32', 'count'), ('dispatch', 'prepare')):
        if key in wgsl: name = nm; break
    n += 1
    base = f'{outdir}/{n:02d}-{name}'
    open(base + '.spvasm', 'w').write('\n'.join(lines))
    r = subprocess.run(['spirv-as', '--target-env', 'vulkan1.3', base + '.spvasm', '-o', base + '.spv'], capture_output=True, text=True)
    print(base, 'assembled' if r.returncode == 0 else r.stderr[:300])
