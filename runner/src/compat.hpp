#pragma once
// Every LibTorch version difference the runner depends on, in one place. CI builds against Debian's
// libtorch-dev 1.13 (CPU); the GPU machine runs PyTorch 2.11's LibTorch (CUDA 13).

#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/native/Resize.h>

#include <tuple>

#define SHARDWISE_TORCH_AT_LEAST(major, minor)                                                                     \
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
            .expand({t.size(0), t.size(1), groups, t.size(2), t.size(3)})
            .reshape({t.size(0), t.size(1) * groups, t.size(2), t.size(3)});
    };
#if SHARDWISE_TORCH_AT_LEAST(2, 0)
    return at::scaled_dot_product_attention(q, repeatHeads(k), repeatHeads(v), {}, 0.0, true);
#else
    return std::get<0>(at::_scaled_dot_product_attention(q, repeatHeads(k), repeatHeads(v), {}, 0.0, false, true));
#endif
#endif
}

// Drops or re-creates a storage's bytes in place, so tensors that autograd saved keep pointing at the
// same StorageImpl and see the data again once it is re-materialised (FSDP2's resize-to-0 trick).
void resizeStorageBytes(const at::Tensor& t, std::size_t bytes);

} // namespace shardwise::runner::compat
