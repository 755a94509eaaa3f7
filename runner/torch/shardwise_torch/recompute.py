"""Activation checkpointing of the decoder layers with torch.utils.checkpoint, the way torchtitan
applies it per TransformerBlock: "full" recomputes each layer's whole forward in backward from its
input; "selective" keeps the outputs of the matmuls and of scaled-dot-product attention and recomputes
the rest (norms, rotary, SiLU and the products, residual adds), as the native runner's selective policy
keeps every matmul output (docs/runner.md). Non-reentrant checkpointing: it composes with DDP and with
fully_shard, whose pre-backward hooks gather a layer's parameters before its recomputation."""

import functools

import torch
import torch.utils.checkpoint as checkpoint

from .options import ConfigError

# aten ops whose outputs selective checkpointing keeps; names a PyTorch lacks are skipped.
_KEPT_OPS = ("mm", "addmm", "bmm", "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
             "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_flash_attention_for_cpu")


def check_policy(policy):
    """Selective needs torch's selective checkpoint contexts (torch >= 2.4); a config error elsewhere."""
    if policy == "selective" and not hasattr(checkpoint, "create_selective_checkpoint_contexts"):
        raise ConfigError("training.checkpoint_policy: selective checkpointing needs "
                          "torch.utils.checkpoint.create_selective_checkpoint_contexts (torch >= 2.4), which this "
                          "PyTorch (%s) lacks; full checkpointing runs here" % torch.__version__)


def _kept_ops():
    aten = torch.ops.aten
    return [getattr(aten, name).default for name in _KEPT_OPS if hasattr(aten, name)]


def checkpoint_layers(layers, policy):
    """Replaces each layer's forward by a checkpointed call of the original one. The module stays (and
    with it the parameter names the dumps and fully_shard see)."""
    check_policy(policy)
    extra = {}
    if policy == "selective":
        extra["context_fn"] = functools.partial(checkpoint.create_selective_checkpoint_contexts, _kept_ops())
    for layer in layers:
        forward = layer.forward

        def checkpointed(*args, _forward=forward, **kwargs):
            return checkpoint.checkpoint(_forward, *args, use_reentrant=False, **extra, **kwargs)

        layer.forward = checkpointed
