"""The decoder the harness trains: a Transformers model built from the spec when Transformers is
installed, else a plain-PyTorch Qwen2/Llama decoder with the same parameter names. Both start from
the native runner's initial weights (same generator, seed and order), so a run of either backend
begins at the same point; --init-params can still load any dump."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Hugging Face's initializer_range for Qwen2 and Llama, as runner/src/sharding_engine.cpp uses it.
INIT_STD = 0.02
_MASK64 = (1 << 64) - 1


def canonical_layout(m):
    """Units of (name, shape, init) in the order of runner/src/model_layout.cpp: unit 0 is the root
    (embedding, final norm, untied head), unit l + 1 decoder layer l. Absent q/k/v biases stay as
    empty slots so the order and the dump format are the native runner's."""
    q_out, kv_out, h = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"], m["hidden"]
    root = [("model.embed_tokens.weight", [m["vocab"], h], "normal"), ("model.norm.weight", [h], "ones")]
    if not m["tied_embeddings"]:
        root.append(("lm_head.weight", [m["vocab"], h], "normal"))
    units = [root]
    bias = m["qkv_bias"]
    for layer in range(m["layers"]):
        p = "model.layers.%d." % layer
        units.append([
            (p + "input_layernorm.weight", [h], "ones"),
            (p + "self_attn.q_proj.weight", [q_out, h], "normal"),
            (p + "self_attn.k_proj.weight", [kv_out, h], "normal"),
            (p + "self_attn.v_proj.weight", [kv_out, h], "normal"),
            (p + "self_attn.q_proj.bias", [q_out if bias else 0], "zeros"),
            (p + "self_attn.k_proj.bias", [kv_out if bias else 0], "zeros"),
            (p + "self_attn.v_proj.bias", [kv_out if bias else 0], "zeros"),
            (p + "self_attn.o_proj.weight", [h, q_out], "normal"),
            (p + "post_attention_layernorm.weight", [h], "ones"),
            (p + "mlp.gate_proj.weight", [m["ffn"], h], "normal"),
            (p + "mlp.up_proj.weight", [m["ffn"], h], "normal"),
            (p + "mlp.down_proj.weight", [h, m["ffn"]], "normal")])
    return units


def _unit_seed(seed, unit):
    # splitmix64 of (seed, unit), as sharding_engine.cpp's unitSeed.
    z = (seed + 0x9E3779B97F4A7C15 * (unit + 1)) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _generator(device, seed):
    g = torch.Generator(device=device) if device.type == "cuda" else torch.Generator()
    # Generator.manual_seed takes a signed 64-bit value in some releases; the bits are what counts.
    try:
        g.manual_seed(seed)
    except RuntimeError:
        g.manual_seed(seed - (1 << 64) if seed >= 1 << 63 else seed)
    return g


def initial_values(m, seed, device):
    """Yields (name, fp32 tensor): the native runner's initialisation, drawn on `device` (its CPU
    generator on the CPU, the device's Philox generator on a GPU), slot after slot with one generator
    per unit; one tensor at a time, so a large model is never held twice."""
    for index, unit in enumerate(canonical_layout(m)):
        gen = _generator(device, _unit_seed(seed, index))
        for name, shape, init in unit:
            numel = math.prod(shape)
            if numel == 0:
                continue
            t = torch.empty(numel, dtype=torch.float32, device=device)
            if init == "normal":
                t.normal_(0.0, INIT_STD, generator=gen)
            elif init == "ones":
                t.fill_(1.0)
            else:
                t.zero_()
            yield name, t.view(shape)


# ---- the plain decoder ------------------------------------------------------------------------

def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def _causal_attention(q, k, v):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # torch 1.13 has no public SDPA: the same maths written out.
    t = q.shape[-2]
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    mask = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype), v)


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps, **factory):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden, **factory))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


class Attention(nn.Module):
    def __init__(self, m, **factory):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = m["heads"], m["kv_heads"], m["head_dim"]
        h, q_out, kv_out = m["hidden"], m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
        self.q_proj = nn.Linear(h, q_out, bias=m["qkv_bias"], **factory)
        self.k_proj = nn.Linear(h, kv_out, bias=m["qkv_bias"], **factory)
        self.v_proj = nn.Linear(h, kv_out, bias=m["qkv_bias"], **factory)
        self.o_proj = nn.Linear(q_out, h, bias=False, **factory)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        if self.kv_heads != self.heads:
            # Query head h reads key/value head h // groups (Hugging Face's repeat_kv).
            groups = self.heads // self.kv_heads
            k = k.repeat_interleave(groups, dim=1)
            v = v.repeat_interleave(groups, dim=1)
        out = _causal_attention(q, k, v).transpose(1, 2).reshape(b, t, self.heads * self.head_dim)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, m, **factory):
        super().__init__()
        self.gate_proj = nn.Linear(m["hidden"], m["ffn"], bias=False, **factory)
        self.up_proj = nn.Linear(m["hidden"], m["ffn"], bias=False, **factory)
        self.down_proj = nn.Linear(m["ffn"], m["hidden"], bias=False, **factory)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, m, **factory):
        super().__init__()
        self.input_layernorm = RMSNorm(m["hidden"], m["norm_eps"], **factory)
        self.self_attn = Attention(m, **factory)
        self.post_attention_layernorm = RMSNorm(m["hidden"], m["norm_eps"], **factory)
        self.mlp = MLP(m, **factory)

    def forward(self, x, cos, sin):
        h = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return h + self.mlp(self.post_attention_layernorm(h))


class Decoder(nn.Module):
    def __init__(self, m, **factory):
        super().__init__()
        self.spec = m
        self.embed_tokens = nn.Embedding(m["vocab"], m["hidden"], **factory)
        self.layers = nn.ModuleList(DecoderLayer(m, **factory) for _ in range(m["layers"]))
        self.norm = RMSNorm(m["hidden"], m["norm_eps"], **factory)
        self._tables = {}

    def rotary_tables(self, t, device, dtype):
        # Plain attributes, not buffers: DDP would broadcast buffers and fully_shard would shard them.
        key = (t, str(device), dtype)
        if key not in self._tables:
            # As the native runner builds them: fp64 angles, theta^(-2i/d), duplicated over both halves.
            d = self.spec["head_dim"]
            inv_freq = torch.pow(self.spec["rope_theta"], -(torch.arange(0, d, 2, dtype=torch.float64) / d))
            angles = torch.outer(torch.arange(t, dtype=torch.float64), inv_freq)
            emb = torch.cat((angles, angles), dim=-1)
            self._tables[key] = (emb.cos().to(device=device, dtype=dtype), emb.sin().to(device=device, dtype=dtype))
        return self._tables[key]

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        cos, sin = self.rotary_tables(input_ids.shape[1], h.device, h.dtype)
        for layer in self.layers:
            h = layer(h, cos, sin)
        return self.norm(h)


class PlainCausalLM(nn.Module):
    def __init__(self, m, **factory):
        super().__init__()
        self.model = Decoder(m, **factory)
        self.tied = m["tied_embeddings"]
        if not self.tied:
            self.lm_head = nn.Linear(m["hidden"], m["vocab"], bias=False, **factory)

    def forward(self, input_ids):
        h = self.model(input_ids)
        return F.linear(h, self.model.embed_tokens.weight) if self.tied else self.lm_head(h)


# ---- the Transformers decoder -------------------------------------------------------------------

def _hf_config(m):
    """The Transformers config class that builds exactly the spec's parameters: Qwen2 carries q/k/v
    biases (and none on o_proj), Llama's attention_bias would put one on o_proj too, so any spec with
    q/k/v biases is a Qwen2Config whatever its family."""
    import transformers
    common = dict(vocab_size=m["vocab"], hidden_size=m["hidden"], intermediate_size=m["ffn"],
                  num_hidden_layers=m["layers"], num_attention_heads=m["heads"], num_key_value_heads=m["kv_heads"],
                  head_dim=m["head_dim"], hidden_act="silu", rms_norm_eps=m["norm_eps"], rope_theta=m["rope_theta"],
                  tie_word_embeddings=m["tied_embeddings"], max_position_embeddings=max(m["max_position"], 4096),
                  use_cache=False)
    if m["qkv_bias"]:
        cfg = transformers.Qwen2Config(use_sliding_window=False, **common)
    elif m["family"] == "mistral":
        cfg = transformers.MistralConfig(sliding_window=None, **common)
    else:
        cfg = transformers.LlamaConfig(attention_bias=False, mlp_bias=False, **common)
    # Transformers 5 reads rope_theta from rope_parameters.
    if isinstance(getattr(cfg, "rope_parameters", None), dict):
        cfg.rope_parameters["rope_theta"] = m["rope_theta"]
    return cfg


def _transformers_model(m, device, dtype):
    import transformers
    cfg = _hf_config(m)
    context = torch.device(device) if hasattr(torch.device, "__enter__") else _NullContext()
    with context:
        # `dtype` since Transformers 4.56 (torch_dtype is deprecated there), `torch_dtype` before; a
        # release that takes neither builds in fp32 and is cast below.
        model = None
        for kwargs in ({"dtype": dtype}, {"torch_dtype": dtype}, {}):
            try:
                model = transformers.AutoModelForCausalLM.from_config(cfg, **kwargs)
                break
            except TypeError:
                continue
        if model is None:
            model = transformers.AutoModelForCausalLM.from_config(cfg)
    return model.to(device=device, dtype=dtype)


class _NullContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _shapes_match(model, m):
    """The model holds exactly the layout's parameters: the same names and shapes, nothing more (a
    parameter outside the layout would keep Transformers' own initialisation)."""
    params = dict(model.named_parameters())
    expected = sum(1 for unit in canonical_layout(m) for _, shape, _ in unit if math.prod(shape) > 0)
    if len(params) != expected:
        return False
    for unit in canonical_layout(m):
        for name, shape, _ in unit:
            if math.prod(shape) == 0:
                if name in params:
                    return False
            elif name not in params or list(params[name].shape) != shape:
                return False
    return True


def build_model(m, device, dtype, prefer, log):
    """(model, "transformers" | "plain"). `prefer`: "auto" (Transformers when it imports), "plain" or
    "transformers" (SHARDWISE_TORCH_MODEL)."""
    model, impl, _ = _build(m, device, dtype, prefer, log, None)
    return model, impl


def build_meta_model(m, dtype, prefer, log, buffer_device):
    """(model, "transformers" | "plain", restore_buffers): the model on the meta device, with no storage,
    for fully_shard to shard before anything is allocated. Module.to_empty gives it storage without
    values; the parameters are then filled by the caller, and restore_buffers(model) puts back the buffers,
    which are no parameters and have no initial values in the layout: Transformers' rotary tables
    (inv_freq), computed again from the config on `buffer_device`. A Transformers model with any other
    buffer is refused like one that cannot be built (the plain decoder has none)."""
    return _build(m, torch.device("meta"), dtype, prefer, log, buffer_device)


def _rotary_module(module):
    return type(module).__name__.endswith("RotaryEmbedding")


def _fresh_rotary(module, device):
    """A new copy of a Transformers rotary embedding, its tables computed on `device`; each buffer in
    the dtype the model gave the original (the build casts buffers with the parameters), plain tensor
    attributes as the constructor leaves them, as in a model built on the device."""
    cls = type(module)
    makers = []
    if getattr(module, "config", None) is not None:
        makers.append(lambda: cls(config=module.config, device=device))
    if hasattr(module, "dim") and hasattr(module, "base"):
        makers.append(lambda: cls(module.dim, max_position_embeddings=getattr(module, "max_position_embeddings", 2048),
                                  base=module.base, device=device))
    fresh = None
    for make in makers:
        try:
            fresh = make()
            break
        except TypeError:
            continue
    if fresh is None:
        raise RuntimeError("cannot rebuild %s after a meta-device build (no config to compute its tables from)"
                           % cls.__name__)
    for name, buf in module.named_buffers(recurse=False):
        new = fresh._buffers.get(name)
        if new is None or list(new.shape) != list(buf.shape):
            raise RuntimeError("cannot rebuild %s.%s after a meta-device build" % (cls.__name__, name))
        fresh._buffers[name] = new.to(device=device, dtype=buf.dtype)
    return fresh


def _buffer_restorer(model, device):
    """For a model on the meta device: a function that, after to_empty, replaces every module that holds
    buffers by a copy built on `device` (the copies are built now, so a model that cannot have them
    fails before anything is sharded)."""
    replacements = []
    for name, module in model.named_modules():
        if not any(True for _ in module.buffers(recurse=False)):
            continue
        if not _rotary_module(module) or not name:
            buffer = next(n for n, _ in module.named_buffers(recurse=False))
            raise RuntimeError("its buffer %s has no initial value to give it after a meta-device build"
                               % (name + "." + buffer if name else buffer))
        parent, _, leaf = name.rpartition(".")
        replacements.append((parent, leaf, _fresh_rotary(module, device)))

    def restore(target):
        for parent, leaf, fresh in replacements:
            setattr(target.get_submodule(parent) if parent else target, leaf, fresh)
    return restore


def _build(m, device, dtype, prefer, log, buffer_device):
    """(model, impl, restore_buffers or None)."""
    meta = buffer_device is not None
    if prefer != "plain":
        try:
            model = _transformers_model(m, device, dtype)
            if _shapes_match(model, m):
                return model, "transformers", _buffer_restorer(model, buffer_device) if meta else None
            if prefer == "transformers":
                raise RuntimeError("the Transformers model's parameters differ from the spec's layout")
            log("warning", "the Transformers model's parameters differ from the spec's layout; using the plain decoder")
            del model
        except ImportError:
            if prefer == "transformers":
                raise
        except Exception as e:  # noqa: BLE001 - any Transformers release that cannot build it: plain
            if prefer == "transformers" or "out of memory" in str(e).lower():
                raise
            log("warning", "Transformers could not build the model (%s: %s); using the plain decoder"
                % (type(e).__name__, e))
    model = PlainCausalLM(m, device=device, dtype=dtype)
    return model, "plain", _buffer_restorer(model, buffer_device) if meta else None


def local_tensor(p):
    """The tensor this rank holds of a parameter: a DTensor's local shard, else the parameter itself."""
    return p.to_local() if hasattr(p, "to_local") else p


def fill_local_shards(named, values):
    """Fills each parameter's local tensor from its full value, for a model sharded before it had
    values (build_meta_model). fully_shard places dimension 0 in chunks over the mesh, and rank 0's
    chunk is the first rows: so rank 0 of a rehearsed world holds exactly the rows of the full
    parameters that it would hold in a real run of that world. Every parameter must get a value."""
    left = set(named)
    with torch.no_grad():
        for name, value in values:
            local = local_tensor(named[name])
            if local.dim() != value.dim() or list(local.shape[1:]) != list(value.shape[1:]) or \
                    local.shape[0] > value.shape[0]:
                raise RuntimeError("%s: local shard %s does not fit the parameter's shape %s"
                                   % (name, list(local.shape), list(value.shape)))
            local.copy_(value.narrow(0, 0, local.shape[0]))
            left.discard(name)
    if left:
        raise RuntimeError("no initial values for %s" % ", ".join(sorted(left)))


def check_materialized(model):
    """No parameter or buffer left on the meta device (a meta-device build gone wrong)."""
    for kind, items in (("parameter", model.named_parameters()), ("buffer", model.named_buffers())):
        for name, t in items:
            if local_tensor(t).is_meta:
                raise RuntimeError("%s %s is still on the meta device after to_empty" % (kind, name))


def canonical_parameters(model):
    """{canonical name: parameter}, seeing through DDP's "module." and torch.compile's "_orig_mod."."""
    out = {}
    for name, p in model.named_parameters():
        parts = [s for s in name.split(".") if s != "_orig_mod"]
        if parts and parts[0] == "module":
            parts = parts[1:]
        out[".".join(parts)] = p
    return out


def decoder_layers(model):
    return model.model.layers


def logits_of(model, inputs, model_impl):
    if model_impl == "transformers":
        return model(input_ids=inputs, use_cache=False).logits
    return model(inputs)
