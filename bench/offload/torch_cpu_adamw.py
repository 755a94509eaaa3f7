"""PyTorch's fused CPU AdamW (torch._fused_adamw_, what torch.optim.AdamW(fused=True) runs on CPU
tensors) over N elements: the reference bench/offload/measure.sh host-adamw reads the product's host
AdamW against, in the same call. One JSON line per state dtype, in shardwise-bench-host-adamw's fields.

    python3 bench/offload/torch_cpu_adamw.py [ELEMENTS] [REPETITIONS]
"""
import json
import os
import statistics
import sys
import time

import torch


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
        elements = n if dtype == torch.bfloat16 else n // 2
        p = torch.full((elements,), 0.01, dtype=dtype)
        g = torch.full((elements,), 0.001, dtype=dtype)
        m = torch.zeros(elements, dtype=dtype)
        v = torch.zeros(elements, dtype=dtype)
        step = torch.ones((), dtype=torch.float32)
        times = []
        for r in range(reps + 1):
            t0 = time.perf_counter()
            torch._fused_adamw_([p], [g], [m], [v], [], [step], lr=1e-3, beta1=0.9, beta2=0.999,
                                weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)
            if r > 0:
                times.append(time.perf_counter() - t0)
            step += 1
        s = statistics.median(times)
        size = 2 if dtype == torch.bfloat16 else 4
        print(json.dumps({"kernel": "torch_fused_adamw", "state": name, "grad": name, "pages": "default",
                          "threads": threads, "elements": elements, "seconds": round(s, 6),
                          "params_per_s": elements / s, "gb_per_s": round(elements * 7 * size / s / 1e9, 2),
                          "torch": torch.__version__}), flush=True)
        del p, g, m, v


if __name__ == "__main__":
    main()
