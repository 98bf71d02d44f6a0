"""per-kernel .text comparison of two cubins (issue11ah): which functions differ.  python3 cmpcubin.py A B"""
import sys
from elftools.elf.elffile import ELFFile
def texts(p):
    f = ELFFile(open(p, 'rb'))
    return {s.name[6:]: s.data() for s in f.iter_sections() if s.name.startswith('.text.')}
a, b = texts(sys.argv[1]), texts(sys.argv[2])
diff = sorted(k for k in a if a[k] != b.get(k)) + sorted(k for k in b if k not in a)
print(f"{len(a)} / {len(b)} functions; differ: {diff}; same: {len(a) - len([k for k in diff if k in a])}")
