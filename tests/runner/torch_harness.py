"""What the torch harness's unittests share: where the harness is in the source tree, and an interpreter
that imports torch to run it with."""

import os
import subprocess
import sys

SOURCE = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TORCH_DIR = os.path.join(SOURCE, "runner", "torch")
HARNESS = os.path.join(TORCH_DIR, "shardwise_torch_runner.py")


def torch_interpreter():
    """An interpreter that imports torch: this one, else Debian's; None where neither does."""
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            done = subprocess.run([python, "-c", "import torch.distributed"], capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return python
    return None
