#include "compat.hpp"

#ifdef SHARDWISE_WITH_CUDA
#include <ATen/native/cuda/Resize.h>
#endif

namespace shardwise::runner::compat {

void resizeStorageBytes(const at::Tensor& t, std::size_t bytes)
{
    auto* storage = t.storage().unsafeGetStorageImpl();
#ifdef SHARDWISE_WITH_CUDA
    if (t.is_cuda()) {
        // Allocates on the current stream, like any caching-allocator allocation.
        at::native::resize_bytes_cuda(storage, bytes);
        return;
    }
#endif
    at::native::resize_bytes_cpu(storage, bytes);
}

} // namespace shardwise::runner::compat
