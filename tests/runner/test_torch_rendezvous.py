"""shardwise-torch-runner's rendezvous on one machine (runner/torch/shardwise_torch/rendezvous.py): the
FileStore's file the launcher names in SHARDWISE_RENDEZVOUS_FILE is this user's alone (0600), never
reached through a link, and a world of several nodes cannot use it. The harness itself, run from the
source tree with an interpreter that imports torch, refuses a planted link naming it, and two ranks meet
through the file while the TCP port they were given is held by another listener.

Run: python3 -m unittest tests/runner/test_torch_rendezvous.py (from the source tree; CTest does it)."""

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_harness import HARNESS, TORCH_DIR, torch_interpreter  # noqa: E402

sys.path.insert(0, TORCH_DIR)

from shardwise_torch import rendezvous  # noqa: E402
from shardwise_torch.options import ConfigError, LaunchEnvironment  # noqa: E402


def launch_env(world, local_world):
    e = LaunchEnvironment()
    e.world, e.local_world = world, local_world
    return e


class StoreFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "rendezvous.store")
        self.saved = os.environ.pop(rendezvous.FILE_ENV, None)
        self.umask = os.umask(0o022)

    def tearDown(self):
        os.umask(self.umask)
        if self.saved is not None:
            os.environ[rendezvous.FILE_ENV] = self.saved
        else:
            os.environ.pop(rendezvous.FILE_ENV, None)
        self.dir.cleanup()

    def mode(self):
        return stat.S_IMODE(os.lstat(self.path).st_mode)

    def test_without_the_variable_the_ranks_meet_over_tcp(self):
        self.assertIsNone(rendezvous.store_file(launch_env(2, 2)))

    def test_one_machines_ranks_get_the_file(self):
        os.environ[rendezvous.FILE_ENV] = self.path
        self.assertEqual(rendezvous.store_file(launch_env(4, 4)), self.path)

    def test_a_world_of_several_nodes_is_refused(self):
        os.environ[rendezvous.FILE_ENV] = self.path
        with self.assertRaises(ConfigError) as caught:
            rendezvous.store_file(launch_env(4, 2))
        self.assertIn(self.path, str(caught.exception))
        self.assertIn("WORLD_SIZE 4", str(caught.exception))

    def test_a_new_file_is_this_users_alone(self):
        rendezvous.open_private(self.path)
        self.assertTrue(stat.S_ISREG(os.lstat(self.path).st_mode))
        self.assertEqual(self.mode(), 0o600)

    def test_a_wider_mode_is_narrowed(self):
        with open(self.path, "w"):
            pass
        os.chmod(self.path, 0o666)
        rendezvous.open_private(self.path)
        self.assertEqual(self.mode(), 0o600)

    def test_a_planted_link_is_refused_and_its_target_untouched(self):
        target = os.path.join(self.dir.name, "target")
        with open(target, "w") as f:
            f.write("not a store")
        os.chmod(target, 0o644)
        os.symlink(target, self.path)
        with self.assertRaises(ConfigError) as caught:
            rendezvous.open_private(self.path)
        self.assertIn("'%s' is a symbolic link" % self.path, str(caught.exception))
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o644)
        with open(target) as f:
            self.assertEqual(f.read(), "not a store")

    def test_a_fifo_is_refused(self):
        os.mkfifo(self.path, 0o600)
        with self.assertRaises(ConfigError) as caught:
            rendezvous.open_private(self.path)
        self.assertIn("'%s' is not a regular file" % self.path, str(caught.exception))


class Harness(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.python = torch_interpreter()
        if cls.python is None:
            raise unittest.SkipTest("no python3 here imports torch (Debian: python3-torch)")

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.store = os.path.join(self.dir.name, "rendezvous.store")

    def tearDown(self):
        self.dir.cleanup()

    def rank_env(self, rank, world, port):
        env = dict(os.environ)
        env.update({"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
                    "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                    "SHARDWISE_LAUNCHER": "shardwise", "OMP_NUM_THREADS": "1", rendezvous.FILE_ENV: self.store})
        return env

    def start(self, rank, world, port):
        args = [self.python, HARNESS, "--seq", "16", "--warmup", "0", "--steps", "1", "--timeout-s", "30"]
        return subprocess.Popen(args, env=self.rank_env(rank, world, port), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def test_a_planted_link_is_a_config_error_naming_it(self):
        target = os.path.join(self.dir.name, "target")
        with open(target, "w"):
            pass
        os.symlink(target, self.store)
        rank = self.start(0, 1, 29400)
        out, err = rank.communicate(timeout=300)
        self.assertEqual(rank.returncode, 2, err)
        error = json.loads(out.strip().splitlines()[-1])
        self.assertEqual(error["event"], "error")
        self.assertEqual(error["kind"], "config")
        self.assertIn("'%s' is a symbolic link" % self.store, error["message"])

    def test_two_ranks_meet_with_their_tcp_port_taken(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
            held.bind(("0.0.0.0", 0))
            held.listen(16)
            port = held.getsockname()[1]
            ranks = [self.start(r, 2, port) for r in range(2)]
            try:
                results = [r.communicate(timeout=120) for r in ranks]
            finally:
                for r in ranks:
                    if r.poll() is None:
                        r.kill()
                        r.wait()
        for r, (out, err) in zip(ranks, results):
            self.assertEqual(r.returncode, 0, err[-4000:])
            self.assertEqual(json.loads(out.strip().splitlines()[-1])["event"], "summary")


if __name__ == "__main__":
    unittest.main()
