"""JSON Lines events exactly as shardwise-runner writes them (docs/protocol.md, core/protocol).

Lines are compact with sorted keys, like nlohmann's dump(): scripts grep for '"event":"summary"'.
Events go to a private duplicate of the original stdout; the process's fd 1 is pointed at stderr, so
nothing a library prints (NCCL's INFO lines, a warning) can land between two events."""

import json
import math
import os
import sys
import time

_events = None  # the protocol's file, set by take_stdout()


def take_stdout():
    global _events
    if _events is None:
        sys.stdout.flush()
        _events = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _events


def _finite(value):
    # nlohmann writes NaN and infinities as null; json.dumps would write the invalid token NaN.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def emit(event, rank, **fields):
    fields.update(v=1, event=event, rank=rank, time=time.time())
    line = json.dumps(_finite(fields), sort_keys=True, separators=(",", ":"), allow_nan=False)
    out = take_stdout()
    out.write(line + "\n")
    out.flush()


def log(rank, message):
    sys.stderr.write("[rank %d] %s\n" % (rank, message))
    sys.stderr.flush()


def emit_log(rank, level, message):
    emit("log", rank, level=level, message=message)
    log(rank, "%s: %s" % (level, message))


def emit_error(rank, kind, message, step=None, memory=None):
    fields = {"kind": kind, "message": message, "reserved_unallocated": 0}
    if step is not None:
        fields["step"] = step
    if memory is not None:
        fields["memory"] = memory
        fields["reserved_unallocated"] = max(0, memory["reserved"] - memory["allocated"])
    emit("error", rank, **fields)
    log(rank, "%s error: %s" % (kind, message))


def host_peak_rss():
    try:
        import resource
        # ru_maxrss is in KiB on Linux.
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):
        return 0


def memory_sample(device):
    """A MemorySample: the caching allocator's numbers on CUDA, zeros and -1 on CPU."""
    m = {"allocated": 0, "reserved": 0, "peak_allocated": 0, "peak_reserved": 0, "alloc_retries": 0,
         "device_free": -1, "device_total": -1, "host_peak_rss": host_peak_rss()}
    if device is not None and device.type == "cuda":
        import torch
        m["allocated"] = torch.cuda.memory_allocated(device)
        m["reserved"] = torch.cuda.memory_reserved(device)
        m["peak_allocated"] = torch.cuda.max_memory_allocated(device)
        m["peak_reserved"] = torch.cuda.max_memory_reserved(device)
        m["alloc_retries"] = torch.cuda.memory_stats(device).get("num_alloc_retries", 0)
        try:
            free, total = torch.cuda.mem_get_info(device)
            m["device_free"], m["device_total"] = int(free), int(total)
        except RuntimeError:
            pass
    return m


def percentile(values, p):
    """Hyndman-Fan type 7, as core/protocol/src/statistics.cpp computes it."""
    s = sorted(values)
    rank = p / 100.0 * (len(s) - 1)
    lo = int(math.floor(rank))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


def allocator_settings(memory_cap_bytes=0):
    conf = os.environ.get("PYTORCH_ALLOC_CONF") or os.environ.get("PYTORCH_CUDA_ALLOC_CONF") or ""
    settings = {"conf": conf, "expandable_segments": "expandable_segments:True" in conf}
    if memory_cap_bytes > 0:
        settings["memory_cap_bytes"] = memory_cap_bytes
    return settings


def _cuda_driver_version():
    # The driver API's version, as shardwise-runner reports cudaDriverGetVersion: "cuda 12.4".
    try:
        import ctypes
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return "cuda %d.%d" % (v.value // 1000, (v.value % 1000) // 10)
    except OSError:
        pass
    return ""


def transformers_version():
    try:
        import transformers
        return transformers.__version__
    except Exception:  # a broken install is as good as none here
        return ""


def software_versions(runner_version, device, model_impl, optimizer=None):
    """The start event's versions; `optimizer` names the AdamW implementation that runs ("AdamW (fused)",
    "AdamW (foreach)" or "AdamW (for-loop)")."""
    import platform
    import torch
    v = {"runner": "shardwise-torch " + runner_version, "libtorch": torch.__version__, "cuda": "", "nccl": "",
         "driver": "", "compiler": "", "backend": "torch", "python": platform.python_version(),
         "torch": torch.__version__, "transformers": transformers_version(), "model_impl": model_impl}
    if optimizer:
        v["optimizer"] = optimizer
    if device.type == "cuda":
        v["cuda"] = torch.version.cuda or ""
        try:
            nccl = torch.cuda.nccl.version()
            v["nccl"] = ".".join(str(x) for x in nccl) if isinstance(nccl, tuple) else str(nccl)
        except (AttributeError, RuntimeError):
            pass
        v["driver"] = _cuda_driver_version()
    return v
