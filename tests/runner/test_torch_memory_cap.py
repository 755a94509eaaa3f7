"""shardwise-torch-runner's SHARDWISE_MEMORY_CAP_GIB (runner/torch/shardwise_torch/training.py), as
shardwise-runner reads it: a number of GiB above 0 caps the CUDA caching allocator; any other value, or
a cap on the CPU (which has no caching allocator), is a configuration error naming it, before anything
runs. The harness runs from the source tree under an interpreter that imports torch (else the harness
cases skip).

Run: python3 -m unittest tests/runner/test_torch_memory_cap.py (from the source tree; CTest does it)."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_harness import HARNESS, torch_interpreter  # noqa: E402


class MemoryCap(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.python = torch_interpreter()
        if cls.python is None:
            raise unittest.SkipTest("no python3 here imports torch (Debian: python3-torch)")

    def run_harness(self, cap):
        env = dict(os.environ, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT="29431", OMP_NUM_THREADS="1", SHARDWISE_MEMORY_CAP_GIB=cap)
        done = subprocess.run([self.python, HARNESS, "--device", "cpu", "--seq", "16", "--warmup", "0", "--steps",
                               "1", "--timeout-s", "30"], env=env, capture_output=True, text=True, timeout=300)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        return done.returncode, json.loads(lines[-1]) if lines else None, done.stderr

    def test_a_cap_on_the_cpu_is_refused(self):
        code, event, err = self.run_harness("4")
        self.assertEqual(code, 2, err)
        self.assertEqual(event["event"], "error")
        self.assertEqual(event["kind"], "config")
        self.assertIn("a memory cap needs --device cuda", event["message"])

    def test_a_value_that_is_not_a_size_is_named(self):
        for bad in ("0", "-1", "lots", "4GiB", "nan", "inf"):
            code, event, err = self.run_harness(bad)
            self.assertEqual(code, 2, err)
            self.assertIn("SHARDWISE_MEMORY_CAP_GIB=%s: expected a number of GiB greater than 0" % bad,
                          event["message"])


if __name__ == "__main__":
    unittest.main()
