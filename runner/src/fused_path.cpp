#include "fused_path.hpp"

#include <cstdlib>
#include <cstring>

namespace shardwise::runner {

bool fusedKernelsEnabled()
{
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    static const bool enabled = [] {
        const char* v = std::getenv("SHARDWISE_FUSED_KERNELS");
        return v == nullptr || std::strcmp(v, "0") != 0;
    }();
    return enabled;
#else
    return false;
#endif
}

bool fusedAdamWEnabled()
{
    static const bool enabled = [] {
        const char* v = std::getenv("SHARDWISE_FUSED_ADAMW");
        return fusedKernelsEnabled() && (v == nullptr || std::strcmp(v, "0") != 0);
    }();
    return enabled;
}

bool takesFusedPath(const at::Tensor& t)
{
    return fusedKernelsEnabled() && t.is_cuda() && t.scalar_type() == at::kBFloat16;
}

} // namespace shardwise::runner
