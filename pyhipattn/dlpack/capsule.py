"""PyCapsule calls through ``ctypes.pythonapi``, with capsule names that outlive everything.

``PyCapsule_New`` and ``PyCapsule_SetName`` store the ``char *`` they are given without
copying it, and producers' capsule destructors compare against it, possibly during
interpreter teardown.  The name constants below are therefore given one extra reference
that is never released, so their bytes stay valid until the process exits.

Each function gets its own prototype (not the shared ``pythonapi.PyCapsule_*`` attribute)
so that no other code's ``argtypes`` can change ours.  All of them hold the GIL.
"""

from __future__ import annotations

import ctypes
from typing import Final


def _immortal(name: bytes) -> bytes:
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(name))
    return name


LEGACY: Final = _immortal(b"dltensor")
VERSIONED: Final = _immortal(b"dltensor_versioned")
USED_LEGACY: Final = _immortal(b"used_dltensor")
USED_VERSIONED: Final = _immortal(b"used_dltensor_versioned")


def _api(name: str, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_obj, _vp, _str = ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p

#: ``is_valid(capsule, name) -> 1 | 0``; never sets an exception.
is_valid = _api("PyCapsule_IsValid", ctypes.c_int, _obj, _str)
#: ``get_pointer(capsule, name) -> address``; raises ValueError when the name differs.
get_pointer = _api("PyCapsule_GetPointer", _vp, _obj, _str)
#: ``set_name(capsule, name) -> 0``; ``name`` must be one of the constants above.
set_name = _api("PyCapsule_SetName", ctypes.c_int, _obj, _str)
#: ``new(address, name, destructor) -> capsule``; ``destructor`` is a C function address.
new = _api("PyCapsule_New", _obj, _vp, _str, _vp)

# The same calls on a capsule given by address: for use inside a capsule destructor, where
# the capsule's reference count is already zero and must not be touched.
is_valid_at = _api("PyCapsule_IsValid", ctypes.c_int, _vp, _str)
get_pointer_at = _api("PyCapsule_GetPointer", _vp, _vp, _str)

# PyErr_Fetch / PyErr_Restore without argtypes: ctypes would call argument converters,
# which fail while an exception is pending.  Pass ctypes objects (c_void_p) only.
_own_api = ctypes.PyDLL(ctypes.pythonapi._name, handle=ctypes.pythonapi._handle)
err_fetch = _own_api.PyErr_Fetch
err_fetch.restype = None
err_restore = _own_api.PyErr_Restore
err_restore.restype = None

#: ``void (*PyCapsule_Destructor)(PyObject *)``, called with the GIL held.
Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def keep_forever(obj: object) -> object:
    """Leak one reference to ``obj`` so that module teardown can never free it."""
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    return obj
