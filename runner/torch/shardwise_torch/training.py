"""One rank's measured run on PyTorch: rendezvous, model, DDP or fully_shard, warm-up and timed steps,
the same step and summary events as runner/src/training_run.cpp."""

import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from . import decoder, events, params, recompute
from .options import ConfigError

# torch.optim.AdamW's defaults apart from the weight decay: the native runner's AdamWSettings
# (runner/src/adamw.hpp).
ADAMW = dict(betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)


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


def check_capabilities(config):
    """What this PyTorch cannot do is a configuration error, found before the rendezvous."""
    strategy = config["strategy"]
    if strategy.startswith("fsdp2") and fsdp2_api() is None:
        raise ConfigError("strategy: %s needs FSDP2 (fully_shard: torch.distributed.fsdp in torch >= 2.6, "
                          "torch.distributed._composable.fsdp in 2.4 and 2.5), which this PyTorch (%s) lacks; "
                          "zero0 (DDP) runs here" % (strategy, torch.__version__))
    if config.get("torch_compile") and not hasattr(torch, "compile"):
        raise ConfigError("torch_compile: torch.compile needs torch >= 2.0, this is %s" % torch.__version__)
    if config["training"]["activation_checkpointing"]:
        recompute.check_policy(checkpoint_policy(config))
    if strategy == "fsdp2_reshard_offload" and config["device"] == "cpu":
        raise ConfigError("strategy: fsdp2_reshard_offload offloads to host memory from a GPU; on --device cpu "
                          "there is nothing to offload to")


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


def connect_ranks(device, env, timeout_s):
    # env:// reads MASTER_ADDR and MASTER_PORT and, under torchrun (TORCHELASTIC_USE_AGENT_STORE), joins
    # the agent's store on that port instead of trying to bind it; rank and world size come from the
    # launch environment already read (Slurm's variables included).
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo", init_method="env://", rank=env.rank,
                            world_size=env.world, timeout=datetime.timedelta(seconds=timeout_s))


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


def _wrap(model, config, device, env, compute_dtype):
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
        return wrapped, "DDP"
    fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy = fsdp2_api()
    kwargs = {"mesh": _init_device_mesh()(device.type, (env.world,)),
              "reshard_after_forward": strategy != "fsdp2_noreshard"}
    if master:
        kwargs["mp_policy"] = MixedPrecisionPolicy(param_dtype=compute_dtype, reduce_dtype=torch.float32)
    if strategy == "fsdp2_reshard_offload":
        kwargs["offload_policy"] = CPUOffloadPolicy(pin_memory=True)
    for layer in decoder.decoder_layers(model):
        fully_shard(layer, **kwargs)
    fully_shard(model, **kwargs)
    return model, "fully_shard"


def run_training(options, env, progress, runner_version):
    c = options.config
    check_capabilities(c)
    device = prepare_device(c, env)
    progress.device = device
    rank = env.rank
    # Pure bf16 keeps parameters (and so AdamW's moments) in bf16; bf16-fp32-master keeps fp32 parameters
    # and computes in bf16; the CPU runs fp32 throughout, as shardwise-runner does.
    compute_dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    param_dtype = torch.float32 if c["training"]["precision"] == "bf16-fp32-master" else compute_dtype

    events.log(rank, "connecting to %s:%d as rank %d of %d" % (env.master_addr, env.master_port, rank, env.world))
    connect_ranks(device, env, options.timeout_s)

    m = c["model"]
    prefer = os.environ.get("SHARDWISE_TORCH_MODEL", "auto")
    # Warnings wait for the start event: nothing precedes it in a rank's stream.
    warnings = []
    model, model_impl = decoder.build_model(m, device, param_dtype, prefer,
                                            lambda level, msg: warnings.append((level, msg)))
    if options.init_params:
        path = params.resolve_dump_path(options.init_params, rank)
        values = params.read_dump(path, m)
        events.log(rank, "initial parameters from " + path)
    else:
        values = decoder.initial_values(m, c["seed"], device)
    named = decoder.canonical_parameters(model)
    with torch.no_grad():
        for name, value in values:
            named[name].copy_(value)
    tokens = token_batches(c, rank, env.world)
    if c["training"]["activation_checkpointing"]:
        recompute.checkpoint_layers(decoder.decoder_layers(model), checkpoint_policy(c))
    model, wrapper = _wrap(model, c, device, env, compute_dtype)
    named = decoder.canonical_parameters(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=c["learning_rate"], **ADAMW)
    autocast = device.type == "cuda" and c["strategy"] == "zero0" and param_dtype != compute_dtype
    if device.type == "cuda":
        torch.cuda.empty_cache()

    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    import socket
    events.emit("start", rank, world=env.world, local_rank=env.local_rank, host=socket.gethostname(), config=c,
                versions=events.software_versions(runner_version, device, model_impl),
                allocator=events.allocator_settings(), launcher=env.launcher, device_name=device_name)
    for level, message in warnings:
        events.emit_log(rank, level, message)
    count = sum(v.numel() for v in named.values())
    events.log(rank, "%s (%s) on %s via %s, %d parameters, %s decoder" % (
        c["strategy"], wrapper, device_name, dist.get_backend(), count, model_impl))

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
               "tokens_per_s": tokens_per_step * env.world / median if median > 0 else 0.0,
               "nccl_share": 0.0, "exposed_comm_share": 0.0, "losses": losses, "memory": peaks, "state": state,
               "checkpoint_save_s": 0.0, "checkpoints_written": 0, "resumed_from_step": -1}
    if device.type == "cuda":
        summary["phase_peak_allocated"] = phases.peaks
    events.emit("summary", rank, **summary)
    events.log(rank, "median step %.6f s, %.1f tokens/s, final loss %.6f" % (median, summary["tokens_per_s"],
                                                                           losses[-1]))


class _no_context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
