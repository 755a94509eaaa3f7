"""Where the ranks meet. Ranks of one machine started by Shardwise's launcher meet through a
torch.distributed.FileStore in the run folder (SHARDWISE_RENDEZVOUS_FILE), which listens on no network
interface; every other launch (torchrun, srun, several nodes) meets at MASTER_ADDR:MASTER_PORT through
PyTorch's TCP store, as env:// does (docs/ssh.md, "What the rendezvous exposes")."""

import errno
import os
import stat

from .options import ConfigError

FILE_ENV = "SHARDWISE_RENDEZVOUS_FILE"


def store_file(env):
    """The FileStore's path the launcher named, or None where the ranks meet over TCP. A file names one
    machine's ranks only: a world spread over several nodes cannot share it."""
    path = os.environ.get(FILE_ENV, "")
    if not path:
        return None
    if env.world != env.local_world:
        raise ConfigError("environment variable %s: '%s' is a file on one machine, but WORLD_SIZE %d spans several "
                          "nodes (LOCAL_WORLD_SIZE %d); ranks of several nodes meet at MASTER_ADDR:MASTER_PORT"
                          % (FILE_ENV, path, env.world, env.local_world))
    return path


def open_private(path):
    """Creates the store's file readable and writable by this user only (0600), or checks the one the
    launcher created: never through a symbolic link, never a file that is not regular or belongs to
    another user; a file of this user's with a wider mode is narrowed to 0600."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ConfigError("environment variable %s: '%s' is a symbolic link; the rendezvous file must be a "
                              "regular file" % (FILE_ENV, path))
        raise ConfigError("environment variable %s: cannot open '%s': %s" % (FILE_ENV, path, e.strerror))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError("environment variable %s: '%s' is not a regular file" % (FILE_ENV, path))
        if st.st_uid != os.geteuid():
            raise ConfigError("environment variable %s: '%s' belongs to user id %d, not to this one (%d)"
                              % (FILE_ENV, path, st.st_uid, os.geteuid()))
        if stat.S_IMODE(st.st_mode) != 0o600:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path
