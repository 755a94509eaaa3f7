#!/usr/bin/env python3
"""shardwise-torch-runner: one rank of a measured training run on PyTorch's own DDP / FSDP2, speaking
shardwise-runner's protocol (usage: --help; docs/torch-backend.md)."""

import os
import re
import sys

# CMake writes the staged and installed copy with these filled in (runner/torch/CMakeLists.txt; the
# package folder relative to this script's); a source checkout leaves the placeholders and finds its
# package and presets beside this file.
_PACKAGE_DIR = "@SHARDWISE_TORCH_PACKAGE_DIR@"
_VERSION = "@PROJECT_VERSION@"
_SOURCE_PRESETS = "@SHARDWISE_PRESET_SOURCE_DIR@"

_HERE = os.path.dirname(os.path.realpath(__file__))
_UNSET = "@"


def _configured(value):
    return value and not value.startswith(_UNSET)


def _source_version():
    try:
        with open(os.path.join(_HERE, "..", "..", "CMakeLists.txt"), encoding="utf-8") as f:
            m = re.search(r"project\(\s*Shardwise\s+VERSION\s+([0-9.]+)", f.read())
            return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


# Byte code would land in the source tree or a read-only install folder.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.normpath(os.path.join(_HERE, _PACKAGE_DIR)) if _configured(_PACKAGE_DIR) else _HERE)

from shardwise_torch import events, install_paths  # noqa: E402
from shardwise_torch.options import (USAGE, ConfigError, best_effort_rank, parse_options,  # noqa: E402
                                     read_launch_environment, reconcile)

install_paths.EXECUTABLE = os.path.realpath(sys.argv[0])
install_paths.VERSION = _VERSION if _configured(_VERSION) else _source_version()
install_paths.SOURCE_PRESET_DIRS = ([_SOURCE_PRESETS] if _configured(_SOURCE_PRESETS) else []) + [
    os.path.join(_HERE, "..", "..", "resources", "presets")]

EXIT_OK, EXIT_INTERNAL, EXIT_CONFIG, EXIT_OOM, EXIT_COMM = 0, 1, 2, 3, 4
_COMM_TYPES = {"DistError", "DistBackendError", "DistNetworkError", "DistStoreError"}
_COMM_TEXT = re.compile(r"NCCL|[Gg]loo|Connection (reset|closed|refused)|[Tt]imed out|timeout|c10d|ProcessGroup|"
                        r"Broken pipe|peer", re.IGNORECASE)


def _import_torch():
    """torch, or None. When the first python3 on PATH (a pyenv or virtualenv interpreter) lacks it,
    the harness runs again under the distribution's /usr/bin/python3, which Debian's python3-torch
    serves; before anything touched the standard streams, so the new process inherits them intact."""
    try:
        import torch
        return torch
    except ImportError:
        system = "/usr/bin/python3"
        if os.environ.get("SHARDWISE_TORCH_REEXEC") != "1" and os.path.realpath(sys.executable) != \
                os.path.realpath(system) and os.access(system, os.X_OK):
            os.environ["SHARDWISE_TORCH_REEXEC"] = "1"
            os.execv(system, [system, os.path.realpath(sys.argv[0])] + sys.argv[1:])
        return None


def _require_torch():
    if "torch" not in sys.modules:
        raise ConfigError("%s cannot import torch: install PyTorch for it (Debian: python3-torch)" % sys.executable)


def _leave(code):
    # Without interpreter shutdown: a process group whose peer died can block in its destructor.
    sys.stderr.flush()
    events.take_stdout().flush()
    os._exit(code)


def _classify(exc):
    """(error kind, exit code) of an exception out of the run."""
    if isinstance(exc, ConfigError):
        return "config", EXIT_CONFIG
    torch = sys.modules.get("torch")
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None) if torch else None
    text = str(exc)
    if isinstance(exc, MemoryError) or (oom_type and isinstance(exc, oom_type)) or "out of memory" in text.lower():
        return "oom", EXIT_OOM
    if type(exc).__name__ in _COMM_TYPES or isinstance(exc, (TimeoutError, ConnectionError)) or _COMM_TEXT.search(text):
        return "comm", EXIT_COMM
    return "internal", EXIT_INTERNAL


def _version_text():
    torch = sys.modules.get("torch")
    torch_version = torch.__version__ if torch else "not importable"
    transformers = events.transformers_version() or "absent"
    import platform
    return "shardwise-torch %s (python %s, torch %s, transformers %s)\n" % (
        install_paths.VERSION, platform.python_version(), torch_version, transformers)


def _parent_of(pid):
    """The parent of `pid` from /proc/<pid>/stat (after the parenthesised name), or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read()
        return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _launcher_is_ancestor(launcher):
    """Whether `launcher` is this process's parent or an ancestor: a --runner wrapper that does not
    exec the harness (/usr/bin/time, perf stat) stands between them. True where /proc cannot tell."""
    pid = os.getppid()
    for _ in range(64):
        if pid == launcher:
            return True
        if pid <= 1:
            return False
        up = _parent_of(pid)
        if up is None:
            try:
                os.kill(launcher, 0)
                return True
            except ProcessLookupError:
                return False
            except OSError:
                return True
        pid = up
    return pid == launcher


def _end_with_the_launcher():
    """A launcher on this machine names itself in SHARDWISE_LAUNCHER_PID; the rank then ends with it
    even when it was killed outright (the native runner does the same, runner/src/main.cpp): SIGTERM
    when the parent goes, and at once where the launcher is no longer among the ancestors."""
    named = os.environ.get("SHARDWISE_LAUNCHER_PID", "")
    if not named.isdigit() or int(named) <= 1 or not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        return
    if not _launcher_is_ancestor(int(named)):
        os.kill(os.getpid(), signal.SIGTERM)


def main(argv):
    _end_with_the_launcher()
    _import_torch()
    events.take_stdout()
    rank = best_effort_rank()
    try:
        options = parse_options(argv)
        if options.help:
            sys.stderr.flush()
            events.take_stdout().write(USAGE)
            _leave(EXIT_OK)
        if options.version:
            events.take_stdout().write(_version_text())
            _leave(EXIT_OK)
        env = read_launch_environment()
        rank = env.rank
        reconcile(options, env)
        _require_torch()
    except ConfigError as e:
        events.emit_error(rank, "config", str(e))
        _leave(EXIT_CONFIG)
    except Exception as e:  # anything else before the run is a bug of the harness
        events.emit_error(rank, "internal", "%s: %s" % (type(e).__name__, e))
        _leave(EXIT_INTERNAL)

    from shardwise_torch import training
    progress = training.Progress()
    try:
        training.run_training(options, env, progress, install_paths.VERSION)
    except Exception as e:
        kind, code = _classify(e)
        memory = events.memory_sample(progress.device) if kind == "oom" else None
        message = str(e) if kind != "internal" else "%s: %s" % (type(e).__name__, e)
        if kind == "internal":
            import traceback
            traceback.print_exc(file=sys.stderr)
        events.emit_error(rank, kind, message.strip() or type(e).__name__, progress.step, memory)
        _leave(code)
    _leave(EXIT_OK)


if __name__ == "__main__":
    main(sys.argv[1:])
