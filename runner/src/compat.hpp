#pragma once
// Every LibTorch version difference the runner depends on, in one place. CI builds against Debian's
// libtorch-dev 1.13 (CPU); the GPU machine runs PyTorch 2.11's LibTorch (CUDA 13).

#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/native/Resize.h>

#include <tuple>

#define SHARDWISE_TORCH_AT_LEAST(major, minor)                                                                         \
    (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace shardwise::runner::compat {

// Causal attention over q [B, H, T, D] and k, v [B, KVH, T, D] with grouped query heads.
// 1.13 only has the private _scaled_dot_product_attention (math kernel, no GQA), so K/V heads are
// repeated to match the query heads; 2.5+ takes enable_gqa and picks flash/efficient kernels.
inline at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v)
{
#if SHARDWISE_TORCH_AT_LEAST(2, 5)
    return at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true, std::nullopt,
                                            /*enable_gqa=*/q.size(1) != k.size(1));
#else
    const auto groups = q.size(1) / k.size(1);
    auto repeatHeads = [groups](const at::Tensor& t) {
        if (groups == 1)
            return t;
        // Query head h reads key/value head h / groups (Hugging Face repeat_kv layout).
        return t.unsqueeze(2)
            .expand({ t.size(0), t.size(1), groups, t.size(2), t.size(3) })
            .reshape({ t.size(0), t.size(1) * groups, t.size(2), t.size(3) });
    };
#if SHARDWISE_TORCH_AT_LEAST(2, 0)
    return at::scaled_dot_product_attention(q, repeatHeads(k), repeatHeads(v), {}, 0.0, true);
#else
    return std::get<0>(at::_scaled_dot_product_attention(q, repeatHeads(k), repeatHeads(v), {}, 0.0, false, true));
#endif
#endif
}

// torch.optim.AdamW(fused=True)'s multi-tensor CUDA kernel (PyTorch 2.2+). Returns false where this
// LibTorch lacks it, and the caller steps tensor by tensor.
// Whether fusedAdamW below can run (PyTorch 2.2+, CUDA tensors of one dtype).
inline constexpr bool kHasFusedAdamW = SHARDWISE_TORCH_AT_LEAST(2, 2);

inline bool fusedAdamW(at::TensorList params, at::TensorList grads, at::TensorList expAvgs, at::TensorList expAvgSqs,
                       at::TensorList steps, double lr, double beta1, double beta2, double weightDecay, double eps)
{
#if SHARDWISE_TORCH_AT_LEAST(2, 2)
    at::_fused_adamw_(params, grads, expAvgs, expAvgSqs, /*max_exp_avg_sqs=*/ {}, steps, lr, beta1, beta2, weightDecay,
                      eps, /*amsgrad=*/false, /*maximize=*/false);
    return true;
#else
    (void)params, (void)grads, (void)expAvgs, (void)expAvgSqs, (void)steps;
    (void)lr, (void)beta1, (void)beta2, (void)weightDecay, (void)eps;
    return false;
#endif
}

// RMSNorm over the last dimension. PyTorch 2.4+ has at::rms_norm (a fused CUDA kernel from 2.8,
// computing in fp32 and rounding once); older versions, and the CPU path, normalise in fp32 and cast
// back before the weight, like Qwen2RMSNorm / LlamaRMSNorm.
inline at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps)
{
#if SHARDWISE_TORCH_AT_LEAST(2, 4)
    if (x.is_cuda())
        return at::rms_norm(x, { x.size(-1) }, weight, eps);
#endif
    const auto xf = x.to(at::kFloat);
    const auto normed = xf * at::rsqrt(xf.pow(2).mean(-1, true) + eps);
    return normed.to(x.scalar_type()) * weight;
}

// Drops or re-creates a storage's bytes in place, so tensors that autograd saved keep pointing at the
// same StorageImpl and see the data again once it is re-materialised (FSDP2's resize-to-0 trick).
void resizeStorageBytes(const at::Tensor& t, std::size_t bytes);

} // namespace shardwise::runner::compat
