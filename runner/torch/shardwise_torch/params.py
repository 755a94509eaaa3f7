"""Parameter dumps in shardwise-runner's format (docs/protocol.md, "Parameter dumps"): one JSON header
line, then the full fp32 parameters in canonical order as raw little-endian float32."""

import ctypes
import json
import math
import os

import torch

from .decoder import canonical_layout
from .options import ConfigError


def full_tensor(p):
    """The whole parameter on this rank. A fully_shard parameter is a DTensor: its shards are gathered
    over the process group (a collective every rank joins), from the compute device even when
    CPUOffloadPolicy keeps them in host memory, because NCCL moves device memory only."""
    t = p.detach()
    if hasattr(t, "full_tensor"):
        local = t.to_local()
        mesh = t.device_mesh
        if local.device.type != mesh.device_type:
            from_local = _dtensor_from_local()
            local = local.to(mesh.device_type)
            t = from_local(local, mesh, t.placements, shape=t.shape, stride=t.stride())
        return t.full_tensor()
    return t


def _dtensor_from_local():
    try:
        from torch.distributed.tensor import DTensor
    except ImportError:
        from torch.distributed._tensor import DTensor
    return DTensor.from_local


def write_dump(path, model_spec, params, rank, world, strategy, step):
    """`params`: {canonical name: parameter}. Every rank calls this (the gathers are collectives, in
    the same order everywhere); one gathered parameter at a time is held on the host."""
    entries, total = [], 0
    for unit in canonical_layout(model_spec):
        for name, shape, _ in unit:
            entries.append({"name": name, "shape": shape, "offset": total})
            total += math.prod(shape)
    header = {"format": "shardwise-params", "version": 1, "dtype": "float32", "byte_order": "little", "rank": rank,
              "world": world, "strategy": strategy, "step": step, "numel": total, "params": entries}
    with open(path, "wb") as f:
        f.write(json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n")
        for e in entries:
            if math.prod(e["shape"]) == 0:
                continue
            t = full_tensor(params[e["name"]]).to(device="cpu", dtype=torch.float32).contiguous()
            # The tensor's own bytes: float32 in the machine's order, which is little-endian on every
            # platform PyTorch ships for.
            f.write(ctypes.string_at(t.data_ptr(), t.numel() * 4))


def resolve_dump_path(path, rank):
    """--init-params PATH: the file itself, else this rank's PATH.rank<R>, else PATH.rank0 (every rank of
    a native dump holds the same full parameters)."""
    for candidate in (path, "%s.rank%d" % (path, rank), path + ".rank0"):
        if os.path.isfile(candidate):
            return candidate
    raise ConfigError("--init-params: neither %s nor %s.rank%d nor %s.rank0 exists" % (path, path, rank, path))


def _whole(value):
    """A count or offset of a dump's header: an integer >= 0 (JSON true is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_dump(path, model_spec):
    """Yields (canonical name, fp32 CPU tensor) of a dump, one parameter at a time so a large model
    is never held twice in host memory; the whole header is checked against the spec's layout before
    the first value is read."""
    with open(path, "rb") as f:
        header_line = f.readline()
        start = f.tell()
        size = os.fstat(f.fileno()).st_size
        try:
            header = json.loads(header_line)
        except ValueError as e:
            raise ConfigError("--init-params: %s has no JSON header line: %s" % (path, e))
        if not isinstance(header, dict) or header.get("format") != "shardwise-params" or \
                header.get("dtype") != "float32":
            raise ConfigError("--init-params: %s is not a shardwise-params float32 dump" % path)
        numel = header.get("numel", -1)
        if not _whole(numel):
            raise ConfigError("--init-params: %s: numel is %r, not a whole number >= 0" % (path, numel))
        if size - start != 4 * numel:
            raise ConfigError("--init-params: %s holds %d bytes of values, its header says %d float32"
                              % (path, size - start, numel))
        listed = {e["name"]: e for e in header.get("params", [])}
        wanted = []
        for unit in canonical_layout(model_spec):
            for name, shape, _ in unit:
                n = math.prod(shape)
                e = listed.get(name)
                if e is None:
                    if n == 0:
                        continue
                    raise ConfigError("--init-params: %s has no parameter %s (a dump of another model?)" % (path, name))
                if list(e["shape"]) != shape:
                    raise ConfigError("--init-params: %s: %s has shape %s, the model's is %s"
                                      % (path, name, e["shape"], shape))
                if not _whole(e.get("offset")):
                    raise ConfigError("--init-params: %s: %s has offset %r, not a whole number >= 0"
                                      % (path, name, e.get("offset")))
                if e["offset"] + n > numel:
                    raise ConfigError("--init-params: %s: %s lies past the end of the values" % (path, name))
                if n:
                    wanted.append((name, shape, e["offset"], n))
        for name, shape, offset, n in wanted:
            f.seek(start + 4 * offset)
            yield name, torch.frombuffer(bytearray(f.read(4 * n)), dtype=torch.float32).view(shape)
