"""Per-kernel .text sha256 of two cubins (a minimal ELF64 reader, no pyelftools): prints the kernels whose .text differ.
    python3 texts.py A.cubin B.cubin [REGEX]"""
import hashlib, re, struct, sys
def texts(p):
    b = open(p, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    stro = sh[shstrndx][4]
    name = lambda o: b[stro + o:b.index(b"\0", stro + o)].decode()
    return {name(s[0])[6:]: hashlib.sha256(b[s[4]:s[4] + s[5]]).hexdigest() for s in sh if name(s[0]).startswith(".text.")}
a, b = texts(sys.argv[1]), texts(sys.argv[2])
rx = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
ks = sorted(k for k in set(a) | set(b) if rx is None or rx.search(k))
d = [k for k in ks if a.get(k) != b.get(k)]
print(f"texts: {len(ks)} kernels compared, differ: {d if d else 'none'}")
