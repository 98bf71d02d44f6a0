"""The CUDA backend against a stub libcuda.so.1: argument types and values, without a GPU.

cuda-bindings does its argument conversion in Cython before calling the driver, so the only way
to check on a CPU machine that ``runtime/cuda.py`` calls it correctly (ints vs handle objects,
the ``extra`` array, kernarg bytes, contexts) is to give it a driver.  The stub below (C,
compiled here with ``cc``) records what reaches it; it runs no kernel.  Each test runs in a
subprocess that preloads the stub under the soname ``libcuda.so.1`` before cuda-bindings looks
for the driver, so the test process itself never sees it.

Skipped when there is no C compiler or no cuda-bindings.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("cuda.bindings", reason="cuda-bindings is not installed")
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler to build the stub libcuda")

STUB_C = r"""
/* A stub libcuda.so.1 for CPU tests of pyhipattn.runtime.cuda.
 *
 * It runs no kernel.  It exists to check, without a GPU, that the backend calls the driver
 * through cuda-bindings (and cffi) with arguments of the right types and values: the bytes
 * that reach cuLaunchKernel through `extra`, the grid, the stream, the context handling, the
 * stream-ordered allocations.  cuda-bindings resolves every entry point through
 * cuGetProcAddress_v2, so that is the one function it must export besides those it stubs;
 * anything else resolves to NULL and fails loudly when called.
 *
 * Built by tests/test_runtime_cuda_stub.py with: cc -shared -fPIC -Wl,-soname,libcuda.so.1
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;

/* ---- what the tests read back (through ctypes) ---- */
int stub_launch_count = 0;
uintptr_t stub_last_function = 0;
unsigned stub_last_dims[7];          /* grid xyz, block xyz, shared */
uintptr_t stub_last_stream = 0;
uintptr_t stub_last_params = 0;
uintptr_t stub_last_markers[3];      /* extra[0], extra[2], extra[4] */
size_t stub_last_size = 0;
unsigned char stub_last_kernargs[4096];
uintptr_t stub_last_context = 0;     /* context current at the last launch */
int stub_module_loads = 0;
unsigned char stub_last_image[8];
char stub_last_function_name[256];
int stub_func_attr = -1, stub_func_attr_value = -1;
int stub_frees = 0, stub_allocs = 0;
uintptr_t stub_last_free_stream = 0;
uintptr_t stub_last_alloc_async_stream, stub_last_memset_stream;
int stub_set_current_calls = 0;

static __thread uintptr_t current_ctx = 0;

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 2; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { if (ordinal < 0 || ordinal > 1) return 101; *dev = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int len, int dev) { strncpy(name, dev ? "Stub GPU B" : "Stub GPU A", len); return 0; }
CUresult cuDeviceTotalMem(size_t *bytes, int dev) { *bytes = (size_t)80 << 30; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  switch (attr) {
    case 75: *v = dev ? 8 : 9; return 0;   /* compute capability major */
    case 76: *v = 0; return 0;             /* minor */
    case 16: *v = 132; return 0;           /* SM count */
    case 97: *v = 232448; return 0;        /* max shared per block, opt-in */
  }
  return 1;
}
CUresult cuDevicePrimaryCtxRetain(uintptr_t *ctx, int dev) { *ctx = 0x1000 + dev; return 0; }
CUresult cuDevicePrimaryCtxRelease(int dev) { return 0; }
CUresult cuCtxGetCurrent(uintptr_t *ctx) { *ctx = current_ctx; return 0; }
CUresult cuCtxSetCurrent(uintptr_t ctx) { current_ctx = ctx; stub_set_current_calls++; return 0; }
CUresult cuCtxGetDevice(int *dev) { if (!current_ctx) return 201; *dev = (int)(current_ctx - 0x1000); return 0; }

CUresult cuModuleLoadData(uintptr_t *mod, const void *image) {
  if (!current_ctx) return 201; /* CUDA_ERROR_INVALID_CONTEXT */
  memcpy(stub_last_image, image, 8);
  stub_module_loads++;
  *mod = 0x2000 + stub_module_loads;
  return 0;
}
CUresult cuModuleUnload(uintptr_t mod) { return mod ? 0 : 400; }
CUresult cuModuleGetFunction(uintptr_t *f, uintptr_t mod, const char *name) {
  if (strcmp(name, "missing") == 0) return 500; /* CUDA_ERROR_NOT_FOUND */
  strncpy(stub_last_function_name, name, 255);
  *f = 0x30000 + mod * 16;
  return 0;
}
CUresult cuFuncSetAttribute(uintptr_t f, int attr, int value) { stub_func_attr = attr; stub_func_attr_value = value; return 0; }

CUresult cuLaunchKernel(uintptr_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, uintptr_t stream, void **params, void **extra) {
  if (!current_ctx) return 201;
  stub_launch_count++;
  stub_last_function = f;
  unsigned d[7] = {gx, gy, gz, bx, by, bz, shared};
  memcpy(stub_last_dims, d, sizeof d);
  stub_last_stream = stream;
  stub_last_params = (uintptr_t)params;
  stub_last_context = current_ctx;
  stub_last_size = 0;
  if (extra) {
    stub_last_markers[0] = (uintptr_t)extra[0];
    stub_last_markers[1] = (uintptr_t)extra[2];
    stub_last_markers[2] = (uintptr_t)extra[4];
    stub_last_size = *(size_t *)extra[3];
    if (stub_last_size > sizeof stub_last_kernargs) return 1;
    memcpy(stub_last_kernargs, extra[1], stub_last_size);
  }
  return 0;
}

CUresult cuStreamCreate(uintptr_t *s, unsigned flags) { *s = 0x4000 + flags; return 0; }
CUresult cuStreamDestroy(uintptr_t s) { return 0; }
CUresult cuStreamSynchronize(uintptr_t s) { return 0; }
CUresult cuEventCreate(uintptr_t *e, unsigned flags) { *e = 0x6000 + flags; return 0; }
CUresult cuEventRecord(uintptr_t e, uintptr_t s) { return e ? 0 : 400; }
CUresult cuStreamWaitEvent(uintptr_t s, uintptr_t e, unsigned flags) { return e ? 0 : 400; }
CUresult cuEventDestroy(uintptr_t e) { return 0; }

CUresult cuDeviceGetDefaultMemPool(uintptr_t *pool, int dev) { *pool = 0x5000 + dev; return 0; }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, uintptr_t pool, uintptr_t stream) {
  if (!current_ctx) return 201;
  *p = (CUdeviceptr)(uintptr_t)malloc(n ? n : 1);
  stub_allocs++;
  return 0;
}
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, uintptr_t stream) {
  *p = (CUdeviceptr)(uintptr_t)malloc(n);
  stub_allocs++;
  stub_last_alloc_async_stream = stream;
  return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char value, size_t n, uintptr_t stream) {
  memset((void *)(uintptr_t)p, value, n);
  stub_last_memset_stream = stream;
  return 0;
}
CUresult cuStreamIsCapturing(uintptr_t stream, int *status) {
  if (!current_ctx) return 201;
  *status = stream == 0x4242 ? 1 : 0;       /* CU_STREAM_CAPTURE_STATUS_ACTIVE for one test stream */
  return 0;
}
CUresult cuMemFreeAsync(CUdeviceptr p, uintptr_t stream) {
  free((void *)(uintptr_t)p);
  stub_frees++;
  stub_last_free_stream = stream;
  return 0;
}
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, uintptr_t s) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, uintptr_t s) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
CUresult cuPointerGetAttributes(unsigned n, int *attrs, void **data, CUdeviceptr ptr) {
  for (unsigned i = 0; i < n; i++) {
    if (attrs[i] == 2) *(unsigned *)data[i] = ptr > 0x10000 ? 2u : 0u;   /* memory type: DEVICE for heap pointers */
    else if (attrs[i] == 9) *(int *)data[i] = ptr > 0x10000 ? 0 : -2;    /* device ordinal */
    else return 1;
  }
  return 0;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
  *s = e == 500 ? "CUDA_ERROR_NOT_FOUND" : e == 201 ? "CUDA_ERROR_INVALID_CONTEXT" : "CUDA_ERROR_STUB";
  return 0;
}
CUresult cuGetErrorString(CUresult e, const char **s) { *s = e == 500 ? "named symbol not found" : "stub error"; return 0; }

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
  Dl_info info;
  void *self = NULL;
  if (dladdr((void *)cuGetProcAddress_v2, &info)) self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  *pfn = self ? dlsym(self, symbol) : NULL;
  if (status) *status = *pfn ? 0 : 1;
  return *pfn ? 0 : 500;
}
"""


@pytest.fixture(scope="module")
def stub(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("stub")
    (d / "stub.c").write_text(STUB_C)
    lib = d / "libcuda.so.1"
    subprocess.run([CC, "-shared", "-fPIC", "-O1", "-Wl,-soname,libcuda.so.1", "-o", str(lib), str(d / "stub.c"), "-ldl"],
                   check=True, capture_output=True)
    return lib


PRELUDE = """
import ctypes, json, os, sys
stub = ctypes.CDLL({lib!r}, mode=os.RTLD_GLOBAL)

def last():
    g = lambda t, n: t.in_dll(stub, n)
    size = g(ctypes.c_size_t, "stub_last_size").value
    return {{
        "count": g(ctypes.c_int, "stub_launch_count").value,
        "function": g(ctypes.c_uint64, "stub_last_function").value,
        "dims": list((ctypes.c_uint * 7).in_dll(stub, "stub_last_dims")),
        "stream": g(ctypes.c_uint64, "stub_last_stream").value,
        "params": g(ctypes.c_uint64, "stub_last_params").value,
        "markers": list((ctypes.c_uint64 * 3).in_dll(stub, "stub_last_markers")),
        "kernargs": bytes((ctypes.c_ubyte * 4096).in_dll(stub, "stub_last_kernargs"))[:size].hex(),
        "context": g(ctypes.c_uint64, "stub_last_context").value,
    }}

def counter(name):
    return ctypes.c_int.in_dll(stub, name).value
"""


def run(stub: Path, body: str, env: dict | None = None) -> dict:
    code = PRELUDE.format(lib=str(stub)) + textwrap.dedent(body)
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PYHIPATTN_PLATFORM", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=full_env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_backend_reports_devices_from_the_driver(stub):
    r = run(stub, """
        from pyhipattn import runtime
        b = runtime.get_backend()
        i0, i1 = b.device_info(0), b.device_info(1)
        print(json.dumps({"platform": b.platform, "count": b.device_count(), "arch": [i0.arch, i1.arch],
                          "name": i0.name, "sms": i0.compute_units, "shared": i0.max_shared_per_block,
                          "mem": i0.total_memory, "current": b.current_device(), "driver": b.driver_version}))
    """)
    assert r == {"platform": "nvidia", "count": 2, "arch": ["sm_90a", "sm_80"], "name": "Stub GPU A", "sms": 132,
                 "shared": 232448, "mem": 80 << 30, "current": 0, "driver": 13000}


@pytest.mark.parametrize("launcher", ["bindings", "cffi"])
def test_both_launchers_pass_the_extra_array(stub, launcher):
    r = run(stub, """
        from pyhipattn.runtime.cuda import CudaBackend
        b = CudaBackend()
        m = b.module_load(0, b"\x7fELF-image")
        f = b.get_function(m, "add_kernel")
        b.make_current(0)
        b.launchers[%r](f, (3, 2, 1), (128, 1, 1), 1024, 0x4001, bytes(range(36)))
        out = last()
        out["f"] = f
        b.launchers[%r](f, (1, 1, 1), (1, 1, 1), 0, 1, b"")
        out["empty"] = last()
        print(json.dumps(out))
    """ % (launcher, launcher))
    assert r["dims"] == [3, 2, 1, 128, 1, 1, 1024]
    assert r["stream"] == 0x4001 and r["function"] == r["f"] and r["params"] == 0
    assert r["markers"] == [1, 2, 0]
    assert bytes.fromhex(r["kernargs"]) == bytes(range(36))
    assert r["empty"]["count"] == 2 and r["empty"]["kernargs"] == "" and r["empty"]["stream"] == 1


@pytest.mark.parametrize("launcher", ["bindings", "cffi"])
def test_bound_launches_write_only_their_pointers_per_thread(stub, launcher):
    """bind_launch: the template reaches the driver with each pointer slot set from ``values``
    (two adjacent runs and a lone slot here), every call and every thread its own values."""
    r = run(stub, """
        import struct, threading
        from pyhipattn.runtime.cuda import CudaBackend
        b = CudaBackend()
        m = b.module_load(0, b"\x7fELF-image")
        f = b.get_function(m, "add_kernel")
        b.make_current(0)
        template = bytes(range(64))
        slots = ((0, 0), (8, 1), (16, 2), (40, 5), (48, 6), (32, 7))
        go = b.launchers[%r].bind(f, (3, 2, 1), (128, 1, 1), 512, template, slots)
        seen = {}
        def call(t):
            b.make_current(0)
            vals = tuple(0x1000 * (t + 1) + i for i in range(8))
            go(0x4001, vals)
            seen[t] = last()
        for t in range(2):
            call(t)
        th = threading.Thread(target=call, args=(2,)); th.start(); th.join()
        print(json.dumps(seen))
    """ % launcher)
    for t in ("0", "1", "2"):
        got = bytes.fromhex(r[t]["kernargs"])
        base = 0x1000 * (int(t) + 1)
        want = bytearray(range(64))
        for off, i in ((0, 0), (8, 1), (16, 2), (40, 5), (48, 6), (32, 7)):
            want[off:off + 8] = (base + i).to_bytes(8, "little")
        assert got == bytes(want), t
        assert r[t]["dims"] == [3, 2, 1, 128, 1, 1, 512] and r[t]["stream"] == 0x4001


def test_pointer_runs_group_adjacent_slots():
    from pyhipattn.runtime._driver import pointer_runs

    runs = pointer_runs(((0, 0), (8, 1), (16, 2), (24, 3), (56, 7), (40, 5)))
    assert [(off, a, b) for _, off, a, b in runs] == [(0, 0, 4), (40, 5, 6), (56, 7, 8)]
    assert [(off, a, b) for _, off, a, b in pointer_runs(((8, 1), (0, 0)))] == [(0, 0, 2)]
    assert [(off, a, b) for _, off, a, b in pointer_runs(((0, 1), (8, 0)))] == [(0, 1, 2), (8, 0, 1)]
    assert pointer_runs(()) == ()


def test_default_launcher_is_bindings_and_the_env_var_picks(stub):
    body = """
        from pyhipattn.runtime.cuda import CudaBackend
        b = CudaBackend()
        print(json.dumps([b.launcher_name, b.launch is b.launchers[b.launcher_name]]))
    """
    assert run(stub, body) == ["bindings", True]
    assert run(stub, body, env={"PYHIPATTN_LAUNCHER": "cffi"}) == ["cffi", True]


def test_generic_launch_reaches_the_driver_with_packed_args(stub):
    r = run(stub, """
        import struct, pyhipattn
        from pyhipattn.runtime import modules
        k = pyhipattn.load("kernels/co/sm_90a/common_add.cubin")["add_kernel"]
        k.launch((4,), (256,), 0x1000, 0x2000, 0x3000, 1000, 2.5)
        k.launch((4,), (256,), 0x1000, 0x2000, 0x3000, 1000, 2.5, stream=0x4001)
        out = last()
        out["loads"] = counter("stub_module_loads")
        out["name"] = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(stub, "stub_last_function_name"))).decode()
        out["args"] = list(struct.unpack("<QQQIf", bytes.fromhex(out["kernargs"])))
        print(json.dumps(out))
    """)
    assert r["args"] == [0x1000, 0x2000, 0x3000, 1000, 2.5]
    assert r["dims"] == [4, 1, 1, 256, 1, 1, 0] and r["stream"] == 0x4001
    assert r["loads"] == 1 and r["name"] == "add_kernel" and r["count"] == 2


def test_runtime_launch_makes_the_kernels_device_current(stub):
    r = run(stub, """
        import struct
        from pyhipattn import runtime, LaunchPlan
        b = runtime.get_backend()
        args = struct.pack("<QQQIfI", 1, 2, 3, 4, 1.0, 100 * 256)
        plan = LaunchPlan("kernels/co/{arch}/common_add.cubin", "add_shared_kernel", (1, 1, 1), (256, 1, 1),
                          100 * 1024, args)
        b.make_current(1)
        runtime.launch(plan, device=0)
        out = last()
        out["attr"] = [counter("stub_func_attr"), counter("stub_func_attr_value")]
        b.make_current(1)
        runtime.launch(plan, device=1)     # sm_80 device: the sm_80 cubin, its own module
        out["ctx1"] = last()["context"]
        out["loads"] = counter("stub_module_loads")
        print(json.dumps(out))
    """)
    assert r["context"] == 0x1000 and r["ctx1"] == 0x1001
    assert r["attr"] == [8, 100 * 1024]   # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    assert r["dims"][6] == 100 * 1024 and r["loads"] == 2


def test_a_launch_on_another_gpu_gives_the_caller_its_context_back(stub):
    """A framework's current device follows the thread's current context: a call on GPU 1's
    arrays launches in GPU 1's context and then restores the caller's (GPU 0's, or none), with
    no context switch at all when the caller's context already is the kernel's."""
    r = run(stub, """
        import struct
        from pyhipattn import runtime, LaunchPlan
        b = runtime.get_backend()
        args = struct.pack("<QQQIf", 1, 2, 3, 4, 1.0)
        plan = LaunchPlan("kernels/co/{arch}/common_add.cubin", "add_kernel", (1, 1, 1), (256, 1, 1), 0, args)
        out = {}
        b.make_current(0)
        runtime.launch(plan, device=1)
        out["launched_in"], out["after"] = last()["context"], b.current_device()
        from pyhipattn.prepared import prepare
        prep = prepare([plan], 1)
        prep.run((0,) * 7, 0)
        out["run_in"], out["after_run"] = last()["context"], b.current_device()
        before = counter("stub_set_current_calls")
        b.make_current(1)
        prep.run((0,) * 7, 0)
        out["switches_when_current"] = counter("stub_set_current_calls") - before - 1
        b.leave(0)                            # no context at all
        prep.run((0,) * 7, 0)
        status_ctx = ctypes.c_uint64()
        stub.cuCtxGetCurrent(ctypes.byref(status_ctx))
        out["none_after"] = status_ctx.value
        print(json.dumps(out))
    """)
    assert r["launched_in"] == 0x1001 and r["after"] == 0
    assert r["run_in"] == 0x1001 and r["after_run"] == 0
    assert r["switches_when_current"] == 0
    assert r["none_after"] == 0


def test_streams_events_and_stream_ordered_memory(stub):
    r = run(stub, """
        from pyhipattn import runtime
        from pyhipattn.runtime import memory
        b = runtime.get_backend()
        s = b.stream_create(0)
        e = b.event_create(0)
        b.event_record(e, s); b.stream_wait_event(s, e); b.event_destroy(e); b.stream_synchronize(s)
        buf = memory.DeviceBuffer(64, 0, s)
        memory.copy_from_host(buf.ptr, bytes(range(64)), s)
        back = memory.copy_to_host(buf.ptr, 64, s)
        dev = b.pointer_device(buf.ptr)
        host = b.pointer_device(0x100)
        buf.free(); buf.free()
        free_stream = ctypes.c_uint64.in_dll(stub, "stub_last_free_stream").value
        b.stream_destroy(s)
        print(json.dumps({"stream": s, "event": e, "roundtrip": back == bytes(range(64)), "dev": dev, "host": host,
                          "frees": counter("stub_frees"), "allocs": counter("stub_allocs"), "free_stream": free_stream}))
    """)
    assert r["stream"] == 0x4001      # CU_STREAM_NON_BLOCKING
    assert r["event"] == 0x6002       # CU_EVENT_DISABLE_TIMING
    assert r["roundtrip"] and r["dev"] == 0 and r["host"] is None
    assert r["allocs"] == 1 and r["frees"] == 1 and r["free_stream"] == r["stream"]


def test_memset_capture_query_and_graph_allocations_reach_the_driver(stub):
    r = run(stub, """
        from pyhipattn import runtime
        b = runtime.get_backend()
        ptr = b.graph_malloc_async(32, 0x77, 0)
        ctypes.memset(ptr, 0xAB, 32)
        b.memset_async(ptr + 8, 0, 16, 0x78, 0)
        data = ctypes.string_at(ptr, 32)
        cap = [b.stream_is_capturing(0x4242, 0), b.stream_is_capturing(0x4243, 0)]
        g = lambda n: ctypes.c_uint64.in_dll(stub, n).value
        print(json.dumps({"data": data.hex(), "cap": cap, "alloc_stream": g("stub_last_alloc_async_stream"),
                          "memset_stream": g("stub_last_memset_stream")}))
    """)
    assert r["data"] == "ab" * 8 + "00" * 16 + "ab" * 8
    assert r["cap"] == [True, False] and r["alloc_stream"] == 0x77 and r["memset_stream"] == 0x78


def test_driver_errors_carry_the_drivers_name_and_text(stub):
    r = run(stub, """
        from pyhipattn import runtime
        from pyhipattn.errors import DriverError
        b = runtime.get_backend()
        m = b.module_load(0, b"x")
        try:
            b.get_function(m, "missing")
        except DriverError as e:
            print(json.dumps([str(e), e.status, e.call]))
    """)
    assert r == ["cuModuleGetFunction failed with status 500: CUDA_ERROR_NOT_FOUND: named symbol not found",
                 500, "cuModuleGetFunction"]
