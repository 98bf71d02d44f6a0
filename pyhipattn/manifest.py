"""What the build scripts say each shipped code object is: ``kernels/co/<arch>/*_manifest.json``.

One reader for every family's manifest, so ``check`` and the planners see the same facts:
for each kernel, its object file, symbol, role, the kernarg header and struct that declare its
arguments, and the dynamic shared memory it needs at launch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .kernels_dir import header, kernels_dir

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Entry:
    family: str
    arch: str
    file: Path           # the code object
    kernel: str          # symbol
    role: str            # fwd | producer | combine | test
    header: Path | None  # kernarg header (kernels/src/...), None when the metadata names args
    struct: str | None
    dynamic_shared: int = 0
    #: further kernel parameters, each a struct of the same header by value at a kernarg offset (the hopper ``_c2``
    #: kernels' ``param_maps``: ("hopper_fwd_maps", offset)); empty: the kernel takes ``struct`` alone
    more_params: tuple[tuple[str, int], ...] = ()

    @property
    def needs_matrix_unit(self) -> bool:
        """Attention producers must use the arch's matrix instructions; combines and tests not."""
        return self.role in ("fwd", "producer")


def _path(p: str | None) -> Path | None:
    if not p:
        return None
    path = Path(p)
    if path.is_absolute():
        return path
    return header(p) if p.startswith("kernels/src/") else ROOT / path


def read_manifest(path: Path) -> list[Entry]:
    """Entries of one manifest file; ValueError naming the file when its shape is unknown."""
    m = json.loads(Path(path).read_text())
    folder = Path(path).parent
    fam, arch = m.get("family", "?"), m.get("arch", folder.name)
    header = _path(m.get("header") or m.get("kernarg_header"))
    out = []
    if "objects" in m and isinstance(m["objects"], list):          # {"objects": [{"file", "kernel", "struct"}]}
        for o in m["objects"]:
            pm = o.get("param_maps")   # {"struct", "offset", ...}: a second struct parameter (hopper.py's param_maps)
            more = ((pm["struct"], int(pm["offset"])),) if isinstance(pm, dict) else ()
            out.append(Entry(fam, arch, folder / o["file"], o["kernel"], o.get("role", "fwd"), header,
                             o.get("struct"), int(o.get("shared", 0)), more))
    elif "kernels" in m:                                              # {"kernels": [{"object", "name", "kernarg_struct"}]}
        for k in m["kernels"]:
            out.append(Entry(fam, arch, folder / k["object"], k["name"], k.get("role", "fwd"), header,
                             k.get("kernarg_struct"), int(k.get("dynamic_shared", 0))))
    else:
        raise ValueError(f"{path}: not a pyhipattn manifest (expected 'objects' or 'kernels' lists)")
    return out


def manifests(root: Path | None = None) -> list[Entry]:
    """Every entry of every ``*_manifest.json`` under ``root`` (default: the shipped kernels)."""
    root = Path(root) if root else kernels_dir()
    entries: list[Entry] = []
    for p in sorted(root.rglob("*_manifest.json")):
        entries.extend(read_manifest(p))
    return entries


def family_manifest(arch: str, family: str) -> dict | None:
    """``kernels/co/<arch>/<family>_manifest.json`` as written (plus ``by_name``: object name ->
    entry), or None when that arch has no objects of the family."""
    p = kernels_dir() / arch / f"{family}_manifest.json"
    if not p.is_file():
        return None
    m = json.loads(p.read_text())
    m["by_name"] = {o["name"]: o for o in m["objects"]}
    return m
