"""Facts about where this copy of the harness lives, set by the entry script before anything reads
them (the CMake-installed script carries the build's values; a source checkout finds its own)."""

EXECUTABLE = ""          # the script that was started (presets are looked for beside its install prefix)
VERSION = ""             # the project version, as CMakeLists.txt's project(VERSION) says
SOURCE_PRESET_DIRS = []  # resources/presets of the source tree, when known
