"""The run description (--config + flags, as shardwise-runner reads it) and the torchrun environment.

The RunConfig is kept as the JSON object core/spec writes (core/spec/src/json.cpp), so the start event
echoes it without a translation layer; the reader below applies the same field names, defaults and
checks, because the app parses the echoed config with that strict reader again."""

import json
import math
import os
import re
import pathlib

STRATEGIES = ["zero0", "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload",
              "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload"]
# What PyTorch itself expresses: DDP for zero0, fully_shard for the three FSDP2 setups. The ZeRO
# stages in between are DeepSpeed's (core/spec/src/framework.cpp, frameworkSupports).
TORCH_STRATEGIES = ["zero0", "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload"]
INT_MAX = 2 ** 31 - 1
# The largest world a rehearsal stands for (core/spec's kMaxRehearsedWorld).
MAX_REHEARSED_WORLD = 65536


class ConfigError(Exception):
    """A bad flag, config field or environment variable: error kind config, exit code 2."""


def _join(path, name):
    return name if not path else path + "." + name


class _Fields:
    """Typed access to one JSON object that refuses unknown keys, as core/spec's FieldReader does."""

    def __init__(self, obj, path, allowed):
        if not isinstance(obj, dict):
            raise ConfigError("%s: expected a JSON object" % (path or "(document)"))
        for key in obj:
            if key not in allowed:
                raise ConfigError("%s: unknown field; allowed fields: %s" % (_join(path, key), ", ".join(allowed)))
        self.obj, self.path = obj, path

    def has(self, name):
        return self.obj.get(name) is not None

    def field(self, name):
        return _join(self.path, name)

    def integer(self, name, lo, hi, fallback=None):
        if not self.has(name):
            return self._fallback(name, fallback)
        v = self.obj[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and v != math.floor(v)):
            raise ConfigError("%s: expected an integer in [%d, %d], got %s" % (self.field(name), lo, hi, json.dumps(v)))
        v = int(v)
        if v < lo or v > hi:
            raise ConfigError("%s: must be in [%d, %d], got %d" % (self.field(name), lo, hi, v))
        return v

    def number(self, name, lo, hi, fallback=None):
        if not self.has(name):
            return self._fallback(name, fallback)
        v = self.obj[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConfigError("%s: expected a number in [%g, %g], got %s" % (self.field(name), lo, hi, json.dumps(v)))
        if not (lo <= v <= hi):
            raise ConfigError("%s: must be in [%g, %g], got %g" % (self.field(name), lo, hi, v))
        return float(v)

    def boolean(self, name, fallback=None):
        if not self.has(name):
            return self._fallback(name, fallback)
        v = self.obj[name]
        if not isinstance(v, bool):
            raise ConfigError("%s: expected true or false, got %s" % (self.field(name), json.dumps(v)))
        return v

    def string(self, name, fallback=None, allowed=None):
        if not self.has(name):
            return self._fallback(name, fallback)
        v = self.obj[name]
        if not isinstance(v, str):
            raise ConfigError("%s: expected a string, got %s" % (self.field(name), json.dumps(v)))
        if allowed is not None and v not in allowed:
            raise ConfigError("%s: unknown value '%s'; allowed: %s" % (self.field(name), v, ", ".join(allowed)))
        return v

    def _fallback(self, name, fallback):
        if fallback is None:
            raise ConfigError("%s: missing required field" % self.field(name))
        return fallback


def validate_model(m, path):
    for key in ("layers", "hidden", "ffn", "heads", "kv_heads", "head_dim", "vocab"):
        if m[key] <= 0:
            raise ConfigError("%s: must be a positive integer, got %d" % (_join(path, key), m[key]))
    if m["heads"] % m["kv_heads"] != 0:
        raise ConfigError("%s: must divide heads (%d), got %d" % (_join(path, "kv_heads"), m["heads"], m["kv_heads"]))
    if m["head_dim"] % 2 != 0:
        raise ConfigError("%s: must be even for rotary embeddings, got %d" % (_join(path, "head_dim"), m["head_dim"]))


def model_from_json(obj, path):
    r = _Fields(obj, path, ["id", "name", "family", "layers", "hidden", "ffn", "heads", "kv_heads", "head_dim",
                            "vocab", "tied_embeddings", "qkv_bias", "norm", "activation", "rope_theta", "norm_eps",
                            "max_position"])
    m = {"id": r.string("id", "")}
    m["name"] = r.string("name", m["id"])
    m["family"] = r.string("family", "llama")
    m["layers"] = r.integer("layers", 1, 4096)
    m["hidden"] = r.integer("hidden", 1, 1 << 20)
    m["ffn"] = r.integer("ffn", 1, 1 << 22)
    m["heads"] = r.integer("heads", 1, 4096)
    m["kv_heads"] = r.integer("kv_heads", 1, 4096, m["heads"])
    m["head_dim"] = r.integer("head_dim", 1, 4096, m["hidden"] // m["heads"])
    m["vocab"] = r.integer("vocab", 1, INT_MAX)
    m["tied_embeddings"] = r.boolean("tied_embeddings", False)
    m["qkv_bias"] = r.boolean("qkv_bias", False)
    m["norm"] = r.string("norm", "rmsnorm", ["rmsnorm", "layernorm"])
    act = r.string("activation", "swiglu", ["swiglu", "silu", "gelu"])
    m["activation"] = "swiglu" if act in ("swiglu", "silu") else act
    m["rope_theta"] = r.number("rope_theta", 1.0, 1e12, 10000.0)
    m["norm_eps"] = r.number("norm_eps", 1e-12, 1e-1, 1e-6)
    m["max_position"] = r.integer("max_position", 0, INT_MAX, 0)
    validate_model(m, path)
    return m


def model_from_hugging_face(obj, model_id):
    """A Hugging Face config.json, read as core/spec's modelFromHuggingFaceConfig reads it."""
    if not isinstance(obj, dict):
        raise ConfigError("config.json: expected a JSON object")

    def need(key):
        v = obj.get(key)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError("config.json.%s: missing or not an integer" % key)
        return v

    def optional(key, kind, fallback):
        v = obj.get(key)
        if v is None:
            return fallback
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise ConfigError("config.json.%s: wrong type, got %s" % (key, json.dumps(v)))
        return v

    model_type = optional("model_type", str, "llama")
    heads = need("num_attention_heads")
    hidden = need("hidden_size")
    act = optional("hidden_act", str, "silu")
    m = {"id": model_id, "name": model_id, "family": model_type, "layers": need("num_hidden_layers"),
         "hidden": hidden, "ffn": need("intermediate_size"), "heads": heads, "vocab": need("vocab_size"),
         "kv_heads": optional("num_key_value_heads", int, heads),
         "head_dim": optional("head_dim", int, hidden // max(1, heads)),
         "tied_embeddings": optional("tie_word_embeddings", bool, False),
         "qkv_bias": model_type == "qwen2" or optional("attention_bias", bool, False),
         "norm": "rmsnorm", "activation": "swiglu" if act in ("silu", "swish") else "gelu",
         "rope_theta": float(obj["rope_theta"]) if isinstance(obj.get("rope_theta"), (int, float)) else 10000.0,
         "norm_eps": float(obj["rms_norm_eps"]) if isinstance(obj.get("rms_norm_eps"), (int, float)) else 1e-6,
         "max_position": optional("max_position_embeddings", int, 0)}
    validate_model(m, "config.json")
    return m


def preset_directory():
    """Where the model presets are, in shardwise-runner's order (core/spec/src/presets.cpp)."""
    env = os.environ.get("SHARDWISE_PRESETS")
    if env:
        return pathlib.Path(env)
    from . import install_paths
    exe = pathlib.Path(os.path.realpath(install_paths.EXECUTABLE))
    installed = exe.parent.parent / "share" / "shardwise" / "presets"
    if (installed / "models").is_dir():
        return installed
    for candidate in install_paths.SOURCE_PRESET_DIRS:
        if (pathlib.Path(candidate) / "models").is_dir():
            return pathlib.Path(candidate)
    return pathlib.Path("resources/presets")


def _read_json(path, field):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ConfigError("%s: cannot open %s: %s" % (field, path, e.strerror))
    except ValueError as e:
        raise ConfigError("%s: %s is not valid JSON: %s" % (field, path, e))


def resolve_model(value, field):
    presets = preset_directory() / "models"
    known = []
    for f in sorted(presets.glob("*.json")) if presets.is_dir() else []:
        m = model_from_json(_read_json(f, str(f)), f.name)
        m["id"] = m["id"] or f.stem
        known.append(m["id"])
        if value.lower() in (m["id"].lower(), m["name"].lower()):
            return m
    p = pathlib.Path(value)
    if p.is_file():
        j = _read_json(p, field)
        if isinstance(j, dict) and "hidden_size" in j:
            return model_from_hugging_face(j, p.parent.name or p.stem)
        m = model_from_json(j, field)
        m["id"] = m["id"] or p.stem
        return m
    raise ConfigError("%s: '%s' is neither a model preset nor a readable file; presets: %s"
                      % (field, value, ", ".join(known) or "(none found in %s)" % presets))


def default_config(model):
    return {"model": model, "strategy": "zero0",
            "training": {"precision": "bf16", "micro_batch": 1, "seq_len": 2048, "activation_checkpointing": False,
                         "expandable_segments": False, "grad_accumulation": 1},
            "knobs": {"reduce_bucket_elements": 500000000, "allgather_bucket_elements": 500000000,
                      "prefetch_bucket_elements": 50000000, "persistence_threshold": 100000, "fsdp_live_units": 2,
                      "max_live_parameters": 1000000000, "max_reuse_distance": 1000000000, "overlap_comm": True},
            "device": "cpu", "world_size": 1, "warmup_steps": 5, "timed_steps": 15, "seed": 1234,
            "learning_rate": 1e-3, "token_file": ""}


def config_from_json(obj):
    r = _Fields(obj, "", ["model", "strategy", "training", "knobs", "device", "world_size", "warmup_steps",
                          "timed_steps", "seed", "learning_rate", "token_file", "backend", "torch_compile",
                          "rehearse_world"])
    if not r.has("model"):
        raise ConfigError("model: missing required field")
    c = default_config(model_from_json(obj["model"], "model"))
    c["strategy"] = r.string("strategy", None, STRATEGIES)
    if r.has("training"):
        t = _Fields(obj["training"], "training", ["precision", "micro_batch", "seq_len", "activation_checkpointing",
                                                  "expandable_segments", "grad_accumulation", "cuda_graphs",
                                                  "checkpoint_policy"])
        c["training"] = {
            "precision": t.string("precision", "bf16", ["bf16", "bf16-fp32-master"]),
            "micro_batch": t.integer("micro_batch", 1, 4096, 1),
            "seq_len": t.integer("seq_len", 1, 1 << 20, 2048),
            "activation_checkpointing": t.boolean("activation_checkpointing", False),
            "expandable_segments": t.boolean("expandable_segments", False),
            "grad_accumulation": t.integer("grad_accumulation", 1, 65536, 1)}
        if t.boolean("cuda_graphs", False):
            c["training"]["cuda_graphs"] = True
        policy = t.string("checkpoint_policy", "full", ["full", "selective"])
        if policy != "full":
            c["training"]["checkpoint_policy"] = policy
    if r.has("knobs"):
        # The schedule knobs belong to the native runner; they are kept so the echoed config is the one given.
        k = _Fields(obj["knobs"], "knobs", list(c["knobs"]))
        for key, default in c["knobs"].items():
            c["knobs"][key] = k.boolean(key, default) if isinstance(default, bool) else k.integer(key, 0, 1 << 40, default)
    c["device"] = r.string("device", "cpu", ["cpu", "cuda"])
    c["world_size"] = r.integer("world_size", 1, 65536, 1)
    c["warmup_steps"] = r.integer("warmup_steps", 0, 100000, 5)
    c["timed_steps"] = r.integer("timed_steps", 1, 100000, 15)
    c["seed"] = r.integer("seed", 0, 2 ** 63 - 1, 1234)
    c["learning_rate"] = r.number("learning_rate", 0.0, 10.0, 1e-3)
    c["token_file"] = r.string("token_file", "")
    r.string("backend", "torch", ["native", "torch"])  # this program is the torch backend whatever it says
    if r.boolean("torch_compile", False):
        c["torch_compile"] = True
    # Absent (0) is a real run; written back only when set, as core/spec writes it.
    rehearse = r.integer("rehearse_world", 1, MAX_REHEARSED_WORLD, 0)
    if rehearse:
        if c["world_size"] != 1:
            raise ConfigError("rehearse_world: a rehearsal of world %d runs one process (rank 0 of that world); "
                              "world_size must be 1, got %d" % (rehearse, c["world_size"]))
        c["rehearse_world"] = rehearse
    return c


USAGE = """usage: shardwise-torch-runner [options]

One rank of a measured training run on PyTorch itself: DDP for zero0, fully_shard (FSDP2) for the
fsdp2 strategies, on a Transformers or plain-PyTorch Qwen2/Llama decoder. Start one process per rank
with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT in the environment (LOCAL_WORLD_SIZE
optional; SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID when RANK is absent), as torchrun, srun or
shardwise-cli run --local do. JSON Lines events go to stdout (docs/protocol.md), a log to stderr;
docs/torch-backend.md says what runs and what is measured.

Run description (a --config file first, then flags override it):
  --config FILE.json        a full RunConfig as Shardwise writes it
  --model PRESET|FILE.json  model preset id (e.g. tiny, qwen2.5-0.5b), Shardwise model JSON or
                            Hugging Face config.json                           (default: tiny)
  --strategy ID             one of: zero0 (DDP), fsdp2_noreshard, fsdp2_reshard,
                            fsdp2_reshard_offload (fully_shard)                (default: zero0)
  --device cpu|cuda         cpu: fp32 + Gloo; cuda: bf16 + NCCL, GPU LOCAL_RANK (default: cpu)
  --precision P             bf16 (bf16 parameters and AdamW state) | bf16-fp32-master (fp32
                            parameters, bf16 compute: MixedPrecisionPolicy / autocast); on cpu
                            everything is fp32 anyway                          (default: bf16)
  --steps N                 timed steps                                        (default: 15)
  --warmup N                warm-up steps before them, not timed               (default: 5)
  --seq N                   sequence length in tokens                          (default: 2048)
  --micro-batch N           sequences per rank per micro-step                  (default: 1)
  --grad-accumulation N     micro-batches per optimizer step: DDP skips its all-reduce (no_sync)
                            until the last, fully_shard reduce-scatters every one (default: 1)
  --activation-checkpointing none|full|selective
                            torch.utils.checkpoint per decoder layer; selective keeps the matmul and
                            attention outputs (torch >= 2.4)                   (default: none)
  --seed N                  seed of weights and synthetic tokens               (default: 1234)
  --lr X                    AdamW learning rate                                (default: 0.001)
  --tokens FILE             raw little-endian int32 token ids instead of synthetic tokens
  --compile                 torch.compile each decoder layer (torch >= 2.0)

Rehearsal (does it fit at world N?):
  --rehearse-world N        run this one process as rank 0 of a world of N ranks that moves no
                            data (PyTorch's fake process group): every parameter, gradient and
                            optimizer shard, gathered layer and gradient bucket is allocated as at
                            world N, so the peaks are one rank's memory at world N; step times
                            hold no communication and the summary's tokens/s is 0. Needs
                            WORLD_SIZE 1 and a PyTorch with the fake process group (2.x). On cpu
                            only the state bytes are measured (no allocator)

Runtime:
  --timeout-s N             a collective (or the rendezvous) taking longer than N seconds is a
                            comm error                                         (default: 120)
  --dump-params PATH        after the last step write the full fp32 parameters, in canonical order,
                            to PATH.rank<R> (shardwise-runner's format, docs/protocol.md)
  --init-params PATH        start from the parameters of such a dump (PATH itself, else
                            PATH.rank<R>, else PATH.rank0), e.g. one that shardwise-runner
                            --dump-initial-params wrote
  --help                    this text
  --version                 the harness's, Python's, PyTorch's and Transformers' versions

Environment:
  SHARDWISE_TORCH_ADAMW     fused | foreach: the AdamW implementation (default: fused where this
                            PyTorch has it for parameters on the GPU, else PyTorch's default)
  SHARDWISE_TORCH_MODEL     plain | transformers: the decoder to build (default: Transformers when
                            it imports, else plain)

Exit codes: 0 ok, 1 internal error, 2 configuration error, 3 out of memory, 4 communication error.
Every failure is also reported as an "error" event on stdout.
"""

_VALUE_FLAGS = {"--config", "--model", "--strategy", "--device", "--precision", "--steps", "--warmup", "--seq",
                "--micro-batch", "--seed", "--lr", "--tokens", "--timeout-s", "--dump-params", "--init-params",
                "--grad-accumulation", "--activation-checkpointing", "--rehearse-world"}
# shardwise-runner options that have no meaning here: named as such rather than as unknown.
_NATIVE_ONLY = {"--cuda-graphs", "--no-overlap-comm", "--reduce-bucket", "--allgather-bucket", "--prefetch-bucket",
                "--persistence-threshold", "--checkpoint-every", "--checkpoint-dir", "--resume", "--profile-kernels",
                "--probe", "--probe-max-bytes", "--dump-initial-params"}


def _number(text, flag, kind, minimum):
    try:
        v = kind(text)
    except ValueError:
        raise ConfigError("%s: '%s' is not a valid number" % (flag, text))
    if kind is float and not math.isfinite(v):
        raise ConfigError("%s: '%s' is not a valid number" % (flag, text))
    if minimum is not None and v < minimum:
        raise ConfigError("%s must be >= %s, got %s" % (flag, minimum, text))
    return v


class Options:
    def __init__(self):
        self.config = None
        self.dump_params = ""
        self.init_params = ""
        self.timeout_s = 120
        self.help = False
        self.version = False
        self.rehearse_flag = False  # --rehearse-world given (else rehearse_world, if any, came from --config)


def parse_options(args):
    o = Options()
    if "--help" in args or "-h" in args:
        o.help = True
        return o
    if "--version" in args:
        o.version = True
        return o
    config_file = None
    for i, a in enumerate(args):
        if a == "--config" and i + 1 < len(args):
            config_file = args[i + 1]
    if config_file is not None:
        o.config = config_from_json(_read_json(config_file, "--config"))
    else:
        o.config = default_config(resolve_model("tiny", "--model"))
    c, t = o.config, o.config["training"]
    i = 0
    while i < len(args):
        flag = args[i]
        i += 1
        if flag == "--compile":
            c["torch_compile"] = True
            continue
        if flag in _NATIVE_ONLY:
            raise ConfigError("%s is a shardwise-runner option; the torch backend runs PyTorch's own DDP / "
                              "fully_shard schedule and has no such setting (see --help)" % flag)
        if not flag.startswith("--"):
            raise ConfigError("unexpected argument '%s' (see --help)" % flag)
        if flag not in _VALUE_FLAGS:
            raise ConfigError("unknown option '%s' (see --help)" % flag)
        if i >= len(args):
            raise ConfigError("%s needs a value (see --help)" % flag)
        value = args[i]
        i += 1
        if flag == "--model":
            c["model"] = resolve_model(value, "--model")
        elif flag == "--strategy":
            if value not in STRATEGIES:
                raise ConfigError("--strategy: unknown strategy '%s'; allowed: %s" % (value, ", ".join(STRATEGIES)))
            c["strategy"] = value
        elif flag == "--device":
            if value not in ("cpu", "cuda"):
                raise ConfigError("--device: unknown device '%s'; allowed: cpu, cuda" % value)
            c["device"] = value
        elif flag == "--precision":
            if value not in ("bf16", "bf16-fp32-master"):
                raise ConfigError("--precision: unknown precision '%s'; allowed: bf16, bf16-fp32-master" % value)
            t["precision"] = value
        elif flag == "--steps":
            c["timed_steps"] = _number(value, flag, int, 1)
        elif flag == "--warmup":
            c["warmup_steps"] = _number(value, flag, int, 0)
        elif flag == "--seq":
            t["seq_len"] = _number(value, flag, int, 1)
        elif flag == "--micro-batch":
            t["micro_batch"] = _number(value, flag, int, 1)
        elif flag == "--grad-accumulation":
            t["grad_accumulation"] = _number(value, flag, int, 1)
        elif flag == "--activation-checkpointing":
            if value not in ("none", "full", "selective"):
                raise ConfigError("--activation-checkpointing: '%s' is not one of none, full, selective" % value)
            t["activation_checkpointing"] = value != "none"
            # As config_from_json echoes it: absent reads as full.
            if value == "selective":
                t["checkpoint_policy"] = value
            else:
                t.pop("checkpoint_policy", None)
        elif flag == "--seed":
            c["seed"] = _number(value, flag, int, 0)
        elif flag == "--lr":
            c["learning_rate"] = _number(value, flag, float, None)
        elif flag == "--tokens":
            c["token_file"] = value
        elif flag == "--timeout-s":
            o.timeout_s = _number(value, flag, int, 1)
        elif flag == "--dump-params":
            o.dump_params = value
        elif flag == "--init-params":
            o.init_params = value
        elif flag == "--rehearse-world":
            c["rehearse_world"] = _rehearsed_world(value)
            o.rehearse_flag = True
    if not c["learning_rate"] > 0:
        raise ConfigError("--lr must be > 0")
    if t.get("cuda_graphs"):
        raise ConfigError("training.cuda_graphs: the torch backend runs eager or compiled steps, not CUDA graphs")
    if c["strategy"] not in TORCH_STRATEGIES:
        raise ConfigError("strategy: PyTorch does not express %s (a DeepSpeed ZeRO stage); the torch backend runs "
                          "zero0 (DDP), fsdp2_noreshard, fsdp2_reshard and fsdp2_reshard_offload (fully_shard)"
                          % c["strategy"])
    # The same limits as the native runner's model layout (runner/src/model_layout.cpp).
    if c["model"]["norm"] != "rmsnorm":
        raise ConfigError("model.norm: the torch backend builds RMSNorm decoders only (Qwen2/Llama family)")
    if c["model"]["activation"] != "swiglu":
        raise ConfigError("model.activation: the torch backend builds SwiGLU decoders only (Qwen2/Llama family)")
    if c["model"]["max_position"] > 0 and t["seq_len"] > c["model"]["max_position"]:
        raise ConfigError("training.seq_len: must not exceed the model's max_position (%d), got %d"
                          % (c["model"]["max_position"], t["seq_len"]))
    _check_rehearsal(o)
    c["backend"] = "torch"
    return o


def _rehearsed_world(text):
    """--rehearse-world's value: an integer in [1, MAX_REHEARSED_WORLD]."""
    try:
        n = int(text, 10)
    except ValueError:
        raise ConfigError("--rehearse-world: '%s' is not an integer (a world of 1 to %d ranks)"
                          % (text, MAX_REHEARSED_WORLD))
    if not 1 <= n <= MAX_REHEARSED_WORLD:
        raise ConfigError("--rehearse-world %s: must be in [1, %d] (the largest world a rehearsal stands for)"
                          % (text, MAX_REHEARSED_WORLD))
    return n


def rehearsal_name(options):
    """How the rehearsal was asked for, for messages: the flag or the config field, with its value."""
    n = options.config.get("rehearse_world", 0)
    return ("--rehearse-world %d" if options.rehearse_flag else "rehearse_world %d") % n


def _check_rehearsal(o):
    """What a rehearsal cannot do, as shardwise-runner refuses it (runner/src/runner_options.cpp)."""
    c = o.config
    n = c.get("rehearse_world", 0)
    if not n:
        return
    if c["world_size"] != 1:
        raise ConfigError("%s: a rehearsal of world %d runs one process (rank 0 of that world); world_size must "
                          "be 1, got %d" % (rehearsal_name(o), n, c["world_size"]))
    if n > 1 and o.dump_params:
        raise ConfigError("%s: --dump-params needs every rank's shard, which a rehearsal does not have"
                          % rehearsal_name(o))
    if n > 1 and o.init_params:
        raise ConfigError("%s: --init-params loads every rank's parameters, and a rehearsal holds rank 0's "
                          "shard of world %d alone" % (rehearsal_name(o), n))


class LaunchEnvironment:
    def __init__(self):
        self.rank = 0
        self.world = 1
        self.local_rank = 0
        self.local_world = 1
        self.master_addr = ""
        self.master_port = 0
        self.launcher = "manual"


def _env(name):
    v = os.environ.get(name)
    return v if v else None


def _env_int(names, fallback=None):
    """The first of `names` that is set, as an integer; torchrun's name first, Slurm's after it."""
    for name in names:
        v = _env(name)
        if v is not None:
            try:
                return int(v)
            except ValueError:
                raise ConfigError("environment variable %s: '%s' is not a valid number" % (name, v))
    if fallback is not None:
        return fallback
    raise ConfigError("environment variable %s is not set (launch through shardwise-cli run, torchrun or srun, "
                      "or set it by hand)" % names[0])


def best_effort_rank():
    for name in ("RANK", "SLURM_PROCID"):
        v = _env(name)
        if v is not None:
            return int(v) if v.isdigit() else 0
    return 0


def first_slurm_host(node_list):
    """The first host of a Slurm hostlist: "gpu[007-010,3],login1" -> "gpu007" (the native runner's rule)."""
    host, depth, first_of_bracket = [], 0, False
    for ch in node_list:
        if ch == "[":
            if depth:
                raise ConfigError("environment variable SLURM_JOB_NODELIST: nested '[' in '%s'" % node_list)
            depth, first_of_bracket = 1, True
        elif ch == "]":
            if depth != 1:
                raise ConfigError("environment variable SLURM_JOB_NODELIST: unbalanced ']' in '%s'" % node_list)
            depth = 0
        elif depth:
            if ch in "-,":
                first_of_bracket = False
            elif first_of_bracket:
                host.append(ch)
        elif ch == ",":
            break
        else:
            host.append(ch)
    if depth or not host:
        raise ConfigError("environment variable SLURM_JOB_NODELIST: cannot read '%s'" % node_list)
    return "".join(host)


def uniform_tasks_per_node(text):
    """SLURM_TASKS_PER_NODE ("8(x2)", "4,4") as one count, or None when the nodes differ."""
    counts = set()
    for item in text.split(","):
        m = re.fullmatch(r"(\d+)(\(x\d+\))?", item)
        if not m or int(m.group(1)) < 1:
            raise ConfigError("environment variable SLURM_TASKS_PER_NODE: cannot read '%s'" % text)
        counts.add(int(m.group(1)))
    return counts.pop() if len(counts) == 1 else None


def apply_slurm_environment():
    """An srun task without torchrun: Slurm's task variables fill the torchrun contract where it is unset,
    by the native runner's rule (docs/protocol.md): the head is the first host of SLURM_JOB_NODELIST and
    the port 15000 + SLURM_JOB_ID mod 20000."""
    if _env("SLURM_PROCID") is None:
        return

    def local_world():
        text = _env("SLURM_TASKS_PER_NODE")
        if text is None:
            raise ConfigError("environment variable SLURM_TASKS_PER_NODE: not set, though SLURM_PROCID is")
        n = uniform_tasks_per_node(text)
        if n is None:
            raise ConfigError("environment variable SLURM_TASKS_PER_NODE: is '%s': every node must run the same "
                              "number of ranks (srun --ntasks-per-node)" % text)
        return n

    def master_addr():
        nodes = _env("SLURM_JOB_NODELIST") or _env("SLURM_NODELIST")
        if nodes is None:
            raise ConfigError("environment variable SLURM_JOB_NODELIST: not set, and MASTER_ADDR is not set either")
        return first_slurm_host(nodes)

    derived = {
        "RANK": lambda: _env_int(["SLURM_PROCID"]),
        "WORLD_SIZE": lambda: _env_int(["SLURM_NTASKS"]),
        "LOCAL_RANK": lambda: _env_int(["SLURM_LOCALID"]),
        "LOCAL_WORLD_SIZE": local_world,
        "MASTER_ADDR": master_addr,
        "MASTER_PORT": lambda: 15000 + _env_int(["SLURM_JOB_ID"]) % 20000,
    }
    for name, value in derived.items():
        if _env(name) is None:
            os.environ[name] = str(value())


def read_launch_environment():
    apply_slurm_environment()
    e = LaunchEnvironment()
    e.rank = _env_int(["RANK"])
    e.world = _env_int(["WORLD_SIZE"])
    e.local_rank = _env_int(["LOCAL_RANK"])
    e.local_world = _env_int(["LOCAL_WORLD_SIZE"], e.world)
    e.master_addr = _env("MASTER_ADDR") or ""
    if not e.master_addr:
        raise ConfigError("environment variable MASTER_ADDR is not set")
    e.master_port = _env_int(["MASTER_PORT"])
    if e.world < 1:
        raise ConfigError("WORLD_SIZE must be >= 1, got %d" % e.world)
    if not 0 <= e.rank < e.world:
        raise ConfigError("RANK must be in [0, WORLD_SIZE), got %d" % e.rank)
    if e.local_world < 1 or not 0 <= e.local_rank < e.local_world:
        raise ConfigError("LOCAL_RANK must be in [0, LOCAL_WORLD_SIZE), got %d" % e.local_rank)
    if e.world % e.local_world != 0:
        raise ConfigError("LOCAL_WORLD_SIZE (%d) must divide WORLD_SIZE (%d): every node runs the same number of "
                          "ranks" % (e.local_world, e.world))
    if not 1 <= e.master_port <= 65535:
        raise ConfigError("MASTER_PORT must be a TCP port, got %d" % e.master_port)
    if _env("SHARDWISE_LAUNCHER"):
        e.launcher = _env("SHARDWISE_LAUNCHER")
    elif _env("TORCHELASTIC_RUN_ID"):
        e.launcher = "torchrun"
    elif _env("SLURM_PROCID"):
        e.launcher = "srun"
    return e


def reconcile(options, env):
    c = options.config
    n = c.get("rehearse_world", 0)
    if n and env.world != 1:
        raise ConfigError("%s: a rehearsal of world %d runs one process (rank 0 of that world); WORLD_SIZE must "
                          "be 1, got %d" % (rehearsal_name(options), n, env.world))
    if c["world_size"] != 1 and c["world_size"] != env.world:
        raise ConfigError("world_size in the config is %d but WORLD_SIZE is %d" % (c["world_size"], env.world))
    c["world_size"] = env.world
