"""One rank's measured run on PyTorch: rendezvous, model, DDP or fully_shard, warm-up and timed steps,
the same step and summary events as runner/src/training_run.cpp."""

import datetime
import inspect
import math
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from . import decoder, events, params, recompute, rendezvous
from .options import ConfigError, rehearsal_name

# torch.optim.AdamW's defaults apart from the weight decay: the native runner's AdamWSettings
# (runner/src/adamw.hpp).
ADAMW = dict(betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
# Overrides the AdamW implementation: "fused" or "foreach" (unset: see make_optimizer).
ADAMW_ENV = "SHARDWISE_TORCH_ADAMW"
FAKE_PG_MODULE = "torch.testing._internal.distributed.fake_pg"


class Progress:
    def __init__(self):
        self.step = None
        self.device = None


def fsdp2_api():
    """(fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy), or None where this PyTorch lacks FSDP2."""
    for module in ("torch.distributed.fsdp", "torch.distributed._composable.fsdp"):
        try:
            mod = __import__(module, fromlist=["fully_shard"])
            return mod.fully_shard, mod.MixedPrecisionPolicy, mod.CPUOffloadPolicy
        except Exception:  # noqa: BLE001 - Debian's 1.13 under Python 3.11 fails this import with a ValueError
            continue
    return None


def _init_device_mesh():
    try:
        from torch.distributed.device_mesh import init_device_mesh
    except ImportError:
        from torch.distributed._tensor import init_device_mesh
    return init_device_mesh


def rehearsed_world(config):
    """N when this run rehearses rank 0 of a world of N ranks, else 0."""
    return config.get("rehearse_world", 0)


def _fake_process_group_store():
    """FakeStore of PyTorch's fake process group; importing its module registers the "fake" backend.
    None where this PyTorch has neither."""
    try:
        module = __import__(FAKE_PG_MODULE, fromlist=["FakeStore"])
    except Exception:  # noqa: BLE001 - absent (1.13), or failing to import: either way there is none
        return None
    store = getattr(module, "FakeStore", None)
    backends = getattr(dist.Backend, "backend_list", None)
    if store is None or (backends is not None and "fake" not in backends):
        return None
    return store


def adamw_request():
    """SHARDWISE_TORCH_ADAMW: "fused", "foreach", or "" (unset: make_optimizer chooses)."""
    value = os.environ.get(ADAMW_ENV, "")
    if value not in ("", "fused", "foreach"):
        raise ConfigError("environment variable %s: '%s' is not one of fused, foreach (unset: fused for parameters "
                          "on the GPU where this PyTorch has it, else PyTorch's default)" % (ADAMW_ENV, value))
    return value


def check_capabilities(config, rehearsal="rehearse_world"):
    """What this PyTorch cannot do is a configuration error, found before the rendezvous (and before
    any model is built). `rehearsal`: how messages name the rehearsal (flag or config field)."""
    strategy = config["strategy"]
    n = rehearsed_world(config)
    if n and _fake_process_group_store() is None:
        raise ConfigError("%s: rehearsing rank 0 of world %d runs on PyTorch's fake process group (the backend "
                          "\"fake\" that %s registers, PyTorch 2.x), which this PyTorch (%s) lacks"
                          % (rehearsal, n, FAKE_PG_MODULE, torch.__version__))
    if adamw_request() == "fused" and not _fused_adamw_exists():
        raise ConfigError("%s=fused: this PyTorch (%s) has no fused AdamW (torch >= 2.0)"
                          % (ADAMW_ENV, torch.__version__))
    if strategy.startswith("fsdp2") and fsdp2_api() is None:
        raise ConfigError("strategy: %s needs FSDP2 (fully_shard: torch.distributed.fsdp in torch >= 2.6, "
                          "torch.distributed._composable.fsdp in 2.4 and 2.5), which this PyTorch (%s) lacks; "
                          "zero0 (DDP) runs here" % (strategy, torch.__version__))
    if config.get("torch_compile") and not hasattr(torch, "compile"):
        raise ConfigError("torch_compile: torch.compile needs torch >= 2.0, this is %s" % torch.__version__)
    if config["training"]["activation_checkpointing"]:
        recompute.check_policy(checkpoint_policy(config))
    if memory_cap_gib() is not None and config["device"] != "cuda":
        raise ConfigError("%s: a memory cap needs --device cuda (on the CPU there is no caching allocator to cap)"
                          % MEMORY_CAP_ENV)
    if strategy == "fsdp2_reshard_offload" and config["device"] == "cpu":
        raise ConfigError("strategy: fsdp2_reshard_offload offloads to host memory from a GPU; on --device cpu "
                          "there is nothing to offload to")


MEMORY_CAP_ENV = "SHARDWISE_MEMORY_CAP_GIB"


def memory_cap_gib():
    """SHARDWISE_MEMORY_CAP_GIB: None (unset or empty) or the GiB the caching allocator may hold (> 0), as
    shardwise-runner reads it; anything else is a configuration error naming the value."""
    value = os.environ.get(MEMORY_CAP_ENV, "")
    if not value:
        return None
    try:
        gib = float(value)
    except ValueError:
        gib = float("nan")
    if not math.isfinite(gib) or gib <= 0:
        raise ConfigError("%s=%s: expected a number of GiB greater than 0" % (MEMORY_CAP_ENV, value[:64]))
    return gib


def apply_memory_cap(device):
    """Caps the caching allocator at SHARDWISE_MEMORY_CAP_GIB (its per-process memory fraction of the
    device): past it an allocation frees the cache, retries and then fails as out of memory, as on a GPU
    of that size. Returns the bytes the cap allows, 0 without one."""
    gib = memory_cap_gib()
    if gib is None:
        return 0
    total = torch.cuda.get_device_properties(device).total_memory
    fraction = min(1.0, gib * 2.0 ** 30 / total)
    torch.cuda.set_per_process_memory_fraction(fraction, device)
    return int(fraction * total)


def checkpoint_policy(config):
    return config["training"].get("checkpoint_policy", "full")


def prepare_device(config, env):
    if config["device"] != "cuda":
        return torch.device("cpu")
    if config["training"]["expandable_segments"] and not os.environ.get("PYTORCH_ALLOC_CONF") \
            and not os.environ.get("PYTORCH_CUDA_ALLOC_CONF"):
        # The allocator reads its settings at the first CUDA allocation.
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        raise ConfigError("--device cuda: this PyTorch (%s) has no CUDA or sees no GPU" % torch.__version__)
    if env.local_rank >= count:
        raise ConfigError("LOCAL_RANK %d but only %d GPUs are visible" % (env.local_rank, count))
    device = torch.device("cuda", env.local_rank)
    torch.cuda.set_device(device)
    return device


def connect_ranks(device, env, timeout_s, rehearse=0):
    if rehearse:
        # Rank 0 of a world of `rehearse` ranks alone: the fake group returns from every collective at
        # once, with no rendezvous and no peer; every tensor keeps its shape at that world.
        dist.init_process_group("fake", store=_fake_process_group_store()(), rank=0, world_size=rehearse)
        return
    backend = "nccl" if device.type == "cuda" else "gloo"
    timeout = datetime.timedelta(seconds=timeout_s)
    path = rendezvous.store_file(env)
    if path:
        # One machine's ranks from Shardwise's launcher: a FileStore in the run folder (mode 0600) that
        # listens on no interface; Gloo's own connections stay on the loopback unless the user says
        # otherwise. MASTER_ADDR and MASTER_PORT are not used.
        rendezvous.open_private(path)
        if backend == "gloo":
            os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        store = dist.FileStore(path, env.world)
        store.set_timeout(timeout)
        dist.init_process_group(backend, store=store, rank=env.rank, world_size=env.world, timeout=timeout)
        return
    # env:// reads MASTER_ADDR and MASTER_PORT and, under torchrun (TORCHELASTIC_USE_AGENT_STORE), joins
    # the agent's store on that port instead of trying to bind it; rank and world size come from the
    # launch environment already read (Slurm's variables included).
    dist.init_process_group(backend, init_method="env://", rank=env.rank, world_size=env.world, timeout=timeout)


def token_batches(config, rank, world):
    """[steps, N x B, T + 1] int64 on the host, as runner/src/token_source.cpp prepares them: each
    optimizer step's N accumulated micro-batches of B sequences, one after another."""
    steps = config["warmup_steps"] + config["timed_steps"]
    t = config["training"]
    B, T, vocab = t["micro_batch"] * t["grad_accumulation"], t["seq_len"], config["model"]["vocab"]
    path = config["token_file"]
    if not path:
        gen = torch.Generator()
        gen.manual_seed((config["seed"] * 1000003 + rank + 1) % (1 << 64))
        return torch.randint(vocab, (steps, B, T + 1), generator=gen, dtype=torch.int64)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        raise ConfigError("--tokens: cannot read '%s'" % path)
    count = len(raw) // 4
    if count < T + 2:
        raise ConfigError("--tokens: '%s' holds %d tokens, fewer than one sequence of %d" % (path, count, T + 1))
    ids = torch.frombuffer(bytearray(raw[:count * 4]), dtype=torch.int32).to(torch.int64)
    if int(ids.min()) < 0 or int(ids.max()) >= vocab:
        raise ConfigError("--tokens: '%s' holds ids outside [0, vocab=%d)" % (path, vocab))
    out = torch.empty(steps, B, T + 1, dtype=torch.int64)
    # Consecutive windows, rank-interleaved like a distributed sampler, wrapping at the end.
    windows = (count - 1) // T
    for s in range(steps):
        for b in range(B):
            w = ((s * world + rank) * B + b) % windows
            out[s, b] = ids[w * T:w * T + T + 1]
    return out


def state_bytes(model, optimizer, device):
    """StateBytes from the tensors themselves: each distinct storage once, by role, on the compute
    device or on the host (the offload side)."""
    s = dict.fromkeys(["device_params", "device_grads", "device_optimizer", "host_params", "host_grads",
                       "host_optimizer"], 0)
    seen = set()

    def add(t, role):
        if t is None:
            return
        if hasattr(t, "to_local"):
            t = t.to_local()
        storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
        nbytes = storage.nbytes()
        key = (t.device.type, t.device.index, storage.data_ptr())
        if nbytes == 0 or key in seen:
            return
        seen.add(key)
        s[("device_" if t.device.type == device.type else "host_") + role] += nbytes

    for p in model.parameters():
        add(p, "params")
        add(p.grad, "grads")
    for st in optimizer.state.values():
        for v in st.values():
            if torch.is_tensor(v) and v.numel() > 1:  # not the step counter
                add(v, "optimizer")
    return s


class _PhasePeaks:
    """Peak allocated bytes per part of the timed steps; the allocator keeps one peak, so each part
    resets it when it ends (as training_run.cpp's PhaseMemory)."""

    def __init__(self, device):
        self.on = device.type == "cuda"
        self.device = device
        self.peaks = {"forward": 0, "backward": 0, "optimizer": 0}
        self.peak_allocated = 0
        self.peak_reserved = 0

    def close(self, phase):
        if not self.on:
            return
        a = torch.cuda.max_memory_allocated(self.device)
        r = torch.cuda.max_memory_reserved(self.device)
        self.peaks[phase] = max(self.peaks[phase], a)
        self.peak_allocated = max(self.peak_allocated, a)
        self.peak_reserved = max(self.peak_reserved, r)
        torch.cuda.reset_peak_memory_stats(self.device)

    def cover(self, m):
        m["peak_allocated"] = max(m["peak_allocated"], self.peak_allocated)
        m["peak_reserved"] = max(m["peak_reserved"], self.peak_reserved)


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _unwritten_fake_collectives(device, world):
    """What fully_shard's collectives leave unwritten under this PyTorch's fake group, as (collective,
    what then holds stale memory) pairs: an all-gather that does not fill every slot with a copy of the
    input (what a gather of identical shards gives), a reduce-scatter that does not leave this rank's
    slice (PyTorch 2.11's fake group writes the first and not the second)."""
    unwritten = []
    full = torch.zeros(world, device=device)
    dist.all_gather_into_tensor(full, torch.full((1,), 2.0, device=device))
    if not bool((full == 2.0).all()):
        unwritten.append(("all-gathers", "the other ranks' rows of each gathered layer"))
    out = torch.zeros(1, device=device)
    dist.reduce_scatter_tensor(out, torch.full((world,), 3.0, device=device))
    if float(out) != 3.0:
        unwritten.append(("reduce-scatters", "the reduced gradient shards"))
    return unwritten


def _rehearsal_comm_hook(device):
    """DDP's gradient all-reduce under a rehearsal: every rank is taken to hold this rank's gradients,
    so the mean over ranks is the bucket itself. The collective still goes to the (fake) group; the
    bucket is handed back through a future of its own, since the fake group's work carries no result
    for DDP's built-in hook to read."""
    def hook(_state, bucket):
        buffer = bucket.buffer()
        dist.all_reduce(buffer)
        future = torch.futures.Future(devices=[device]) if device.type == "cuda" else torch.futures.Future()
        future.set_result(buffer)
        return future
    return hook


def _wrap(model, config, device, world, compute_dtype):
    strategy = config["strategy"]
    master = device.type == "cuda" and config["training"]["precision"] == "bf16-fp32-master"
    if config.get("torch_compile"):
        layers = decoder.decoder_layers(model)
        for i, layer in enumerate(layers):
            if hasattr(layer, "compile"):
                layer.compile()
            else:
                layers[i] = torch.compile(layer)
    if strategy == "zero0":
        from torch.nn.parallel import DistributedDataParallel
        wrapped = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
        if rehearsed_world(config):
            wrapped.register_comm_hook(None, _rehearsal_comm_hook(device))
        return wrapped, "DDP"
    fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy = fsdp2_api()
    kwargs = {"mesh": _init_device_mesh()(device.type, (world,)),
              "reshard_after_forward": strategy != "fsdp2_noreshard"}
    if master:
        kwargs["mp_policy"] = MixedPrecisionPolicy(param_dtype=compute_dtype, reduce_dtype=torch.float32)
    if strategy == "fsdp2_reshard_offload":
        kwargs["offload_policy"] = CPUOffloadPolicy(pin_memory=True)
    for layer in decoder.decoder_layers(model):
        fully_shard(layer, **kwargs)
    fully_shard(model, **kwargs)
    return model, "fully_shard"


def _fused_adamw_exists():
    try:
        return "fused" in inspect.signature(torch.optim.AdamW.__init__).parameters
    except (TypeError, ValueError):
        return False


def _default_foreach(params):
    """What torch.optim.AdamW does when neither foreach nor fused is given: PyTorch 2.x picks foreach
    for parameters on the GPU (by its own rule, DTensors included), 1.13 the for-loop."""
    try:
        from torch.optim.optimizer import _default_to_fused_or_foreach
    except ImportError:
        return False
    try:
        return bool(_default_to_fused_or_foreach(params, False, use_fused=False)[1])
    except TypeError:
        return bool(_default_to_fused_or_foreach(params, False)[1])


def make_optimizer(params, lr, request):
    """(torch.optim.AdamW, "AdamW (fused)" | "AdamW (foreach)" | "AdamW (for-loop)"). Unset request: the
    fused kernel where every parameter is on the GPU and this PyTorch has one (torch >= 2.0; torchtitan's
    default), else PyTorch's own default, asked for explicitly so the label is what ran. "fused" and
    "foreach" (SHARDWISE_TORCH_ADAMW) force one; a fused AdamW this PyTorch cannot run is a config error."""
    params = list(params)
    on_gpu = bool(params) and all(p.device.type == "cuda" for p in params)
    if request == "fused" or (not request and on_gpu and _fused_adamw_exists()):
        if not _fused_adamw_exists():
            raise ConfigError("%s=fused: this PyTorch (%s) has no fused AdamW (torch >= 2.0)"
                              % (ADAMW_ENV, torch.__version__))
        try:
            return torch.optim.AdamW(params, lr=lr, fused=True, **ADAMW), "AdamW (fused)"
        except (RuntimeError, ValueError) as e:
            if request == "fused":
                raise ConfigError("%s=fused: this PyTorch (%s) has no fused AdamW for parameters on %s: %s"
                                  % (ADAMW_ENV, torch.__version__, params[0].device.type, e))
    foreach = True if request == "foreach" else _default_foreach(params)
    return (torch.optim.AdamW(params, lr=lr, foreach=foreach, **ADAMW),
            "AdamW (foreach)" if foreach else "AdamW (for-loop)")


def _rehearsal_note(n, device):
    return ("rehearsing rank 0 of world %d with PyTorch's fake process group: every shard, gathered layer and "
            "gradient bucket has its shape at that world and no data moves between ranks, so memory is one "
            "rank's and step times hold no communication (not a measurement of that world's speed)%s"
            % (n, "" if device.type == "cuda" else "; on the CPU there is no allocator to read, so only the "
               "state bytes (parameters, gradients, optimizer state) are measured"))


def run_training(options, env, progress, runner_version):
    c = options.config
    check_capabilities(c, rehearsal_name(options))
    device = prepare_device(c, env)
    memory_cap_bytes = apply_memory_cap(device) if device.type == "cuda" else 0
    progress.device = device
    rank = env.rank
    # Pure bf16 keeps parameters (and so AdamW's moments) in bf16; bf16-fp32-master keeps fp32 parameters
    # and computes in bf16; the CPU runs fp32 throughout, as shardwise-runner does.
    compute_dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    param_dtype = torch.float32 if c["training"]["precision"] == "bf16-fp32-master" else compute_dtype

    # A rehearsal runs rank 0 of a world of `rehearse` ranks in this process alone (WORLD_SIZE 1).
    rehearse = rehearsed_world(c)
    world = rehearse or env.world
    if rehearse:
        events.log(rank, _rehearsal_note(rehearse, device))
    else:
        events.log(rank, "connecting to %s:%d as rank %d of %d" % (env.master_addr, env.master_port, rank,
                                                                   env.world))
    connect_ranks(device, env, options.timeout_s, rehearse)

    m = c["model"]
    prefer = os.environ.get("SHARDWISE_TORCH_MODEL", "auto")
    # Warnings wait for the start event: nothing precedes it in a rank's stream.
    warnings = []
    warn = lambda level, msg: warnings.append((level, msg))  # noqa: E731
    # A rehearsed fully_shard never holds the whole model: it is built on the meta device, sharded,
    # then given storage for rank 0's shards only (DDP holds the whole model anyway).
    meta = bool(rehearse) and c["strategy"].startswith("fsdp2")
    offload = c["strategy"] == "fsdp2_reshard_offload"
    if meta:
        model, model_impl, restore_buffers = decoder.build_meta_model(m, param_dtype, prefer, warn, device)
    else:
        model, model_impl = decoder.build_model(m, device, param_dtype, prefer, warn)
    if options.init_params:
        path = params.resolve_dump_path(options.init_params, rank)
        values = params.read_dump(path, m)
        events.log(rank, "initial parameters from " + path)
    else:
        values = decoder.initial_values(m, c["seed"], device)
    if not meta:
        named = decoder.canonical_parameters(model)
        with torch.no_grad():
            for name, value in values:
                named[name].copy_(value)
    tokens = token_batches(c, rank, world)
    if c["training"]["activation_checkpointing"]:
        recompute.checkpoint_layers(decoder.decoder_layers(model), checkpoint_policy(c))
    model, wrapper = _wrap(model, c, device, world, compute_dtype)
    named = decoder.canonical_parameters(model)
    if meta:
        # The shards' storage, on the host where CPUOffloadPolicy keeps them; rank 0's rows of the same
        # initial values as a real run (so a rehearsal of world 1 starts where a real run does); the
        # rotary tables, which are buffers, computed again on the device.
        model.to_empty(device=torch.device("cpu") if offload else device)
        restore_buffers(model)
        named = decoder.canonical_parameters(model)
        decoder.fill_local_shards(named, values)
        decoder.check_materialized(model)
    # At world 1 a gather is the shard itself and fully_shard reduces nothing: the values are a real run's.
    unwritten = _unwritten_fake_collectives(device, world) if rehearse > 1 and wrapper == "fully_shard" else []
    if unwritten:
        warn("warning", "this PyTorch's fake process group does not write the outputs of %s: %s hold whatever "
                        "memory the allocator handed out, so the values may turn NaN; the memory measured is the same"
             % (" and ".join(c for c, _ in unwritten), " and ".join(w for _, w in unwritten)))
    optimizer, optimizer_impl = make_optimizer(model.parameters(), c["learning_rate"], adamw_request())
    autocast = device.type == "cuda" and c["strategy"] == "zero0" and param_dtype != compute_dtype
    if device.type == "cuda":
        torch.cuda.empty_cache()

    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    import socket
    events.emit("start", rank, world=env.world, local_rank=env.local_rank, host=socket.gethostname(), config=c,
                versions=events.software_versions(runner_version, device, model_impl, optimizer_impl),
                allocator=events.allocator_settings(memory_cap_bytes), launcher=env.launcher,
                device_name=device_name)
    for level, message in warnings:
        events.emit_log(rank, level, message)
    count = sum(v.numel() for v in named.values())
    events.log(rank, "%s (%s) on %s via %s, %d parameters, %s decoder, %s" % (
        c["strategy"], wrapper, device_name, dist.get_backend(), count, model_impl, optimizer_impl))

    total = c["warmup_steps"] + c["timed_steps"]
    T = c["training"]["seq_len"]
    B, micro_steps = c["training"]["micro_batch"], c["training"]["grad_accumulation"]
    # Per optimizer step and rank, as shardwise-runner counts them.
    tokens_per_step = B * T * micro_steps
    phases = _PhasePeaks(device)
    step_times, losses, peaks, state = [], [], None, None
    for step in range(total):
        progress.step = step
        timed = step >= c["warmup_steps"]
        if step == c["warmup_steps"] and device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        _sync(device)
        begin = time.perf_counter()
        batch = tokens[step].to(device)
        loss = 0.0
        for micro in range(micro_steps):
            rows = batch[micro * B:(micro + 1) * B]
            inputs, targets = rows[:, :T], rows[:, 1:]
            # Accumulated micro-batches: DDP all-reduces only at the last (no_sync before it), as the
            # native zero0 does; fully_shard keeps its default and reduce-scatters every micro-batch
            # into the sharded gradients, as the native runner's sharded strategies do.
            last = micro == micro_steps - 1
            sync = _no_context() if last or wrapper != "DDP" else model.no_sync()
            with sync:
                with torch.autocast(device_type="cuda", dtype=compute_dtype, enabled=autocast) if autocast \
                        else _no_context():
                    logits = decoder.logits_of(model, inputs, model_impl)
                    micro_loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1))
                del logits
                if timed:
                    phases.close("forward")
                # 1/N of each micro-batch's mean: the sum is the gradient of the mean over the step's tokens.
                (micro_loss / micro_steps).backward()
            if timed:
                phases.close("backward")
            loss = loss + micro_loss.detach() / micro_steps
        optimizer.step()
        if step == total - 1:
            # Gradients are measured while they exist: from backward to the optimizer step.
            state = state_bytes(model, optimizer, device)
        optimizer.zero_grad(set_to_none=True)
        if timed:
            phases.close("optimizer")
        loss_value = float(loss)
        _sync(device)
        seconds = time.perf_counter() - begin
        memory = events.memory_sample(device)
        if timed:
            phases.cover(memory)
            step_times.append(seconds)
            peaks = memory
        losses.append(loss_value)
        # Collective time is not separable from PyTorch's own schedule without a profiler: 0 here
        # (docs/torch-backend.md).
        events.emit("step", rank, step=step, timed=timed, loss=loss_value, step_time_s=seconds, comm_time_s=0.0,
                    exposed_comm_s=0.0, tokens=tokens_per_step, memory=memory)
    progress.step = None

    if options.dump_params:
        path = "%s.rank%d" % (options.dump_params, rank)
        params.write_dump(path, m, named, rank, env.world, c["strategy"], total)
        events.log(rank, "parameters written to " + path)

    median = events.percentile(step_times, 50)
    summary = {"world": env.world, "warmup_steps": c["warmup_steps"], "timed_steps": len(step_times),
               "median_step_s": median, "p10_step_s": events.percentile(step_times, 10),
               "p90_step_s": events.percentile(step_times, 90),
               # A rehearsal's step holds no communication: its tokens/s would stand for no world at all.
               "tokens_per_s": tokens_per_step * env.world / median if median > 0 and not rehearse else 0.0,
               "nccl_share": 0.0, "exposed_comm_share": 0.0, "losses": losses, "memory": peaks, "state": state,
               "checkpoint_save_s": 0.0, "checkpoints_written": 0, "resumed_from_step": -1}
    if rehearse:
        summary["rehearsed_world"] = rehearse
    if device.type == "cuda":
        summary["phase_peak_allocated"] = phases.peaks
    events.emit("summary", rank, **summary)
    if rehearse:
        events.log(rank, "rehearsal of world %d: peak allocated %d B, reserved %d B; median compute-only step %.6f s"
                   % (rehearse, peaks["peak_allocated"], peaks["peak_reserved"], median))
    else:
        events.log(rank, "median step %.6f s, %.1f tokens/s, final loss %.6f" % (median, summary["tokens_per_s"],
                                                                               losses[-1]))


class _no_context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
