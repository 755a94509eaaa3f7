#!/usr/bin/env python3
"""bench/results keeps each measured batch as one archive, not a folder of small files.

  bench/batch.py pack DIR...           DIR -> DIR.tar.gz (sorted, owner 0, mtime 0, gzip without a
                                       name or time: the same files give the same bytes); a README.md
                                       in DIR also stays beside the archive as DIR.md; DIR is removed
  bench/batch.py unpack ARCHIVE [DEST] unpacks a batch (default: beside the archive) to read or
                                       re-analyse it, e.g. shardwise-bench-fidelity analyze --results
  bench/batch.py examples [RESULTS]    rewrites RESULTS/examples.jsonl (default bench/results): the
                                       event files examples.json lists, one line per event,
                                       {"file": <name in examples.json>, "event": {...}}, read from the
                                       batch archives (or from unpacked folders)
"""
import gzip
import io
import json
import pathlib
import shutil
import sys
import tarfile

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def pack(folder: pathlib.Path) -> pathlib.Path:
    folder = folder.resolve()
    if not folder.is_dir():
        sys.exit(f"batch.py pack: {folder} is not a folder")
    archive = folder.with_name(folder.name + ".tar.gz")
    if archive.exists():
        sys.exit(f"batch.py pack: {archive} exists already")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            info = tarfile.TarInfo(f"{folder.name}/{path.relative_to(folder).as_posix()}")
            info.size = path.stat().st_size
            info.mode = 0o644
            info.mtime = 0
            with path.open("rb") as data:
                tar.addfile(info, data)
    with archive.open("wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as z:
            z.write(raw.getvalue())
    readme = folder / "README.md"
    if readme.is_file():
        shutil.copyfile(readme, folder.with_name(folder.name + ".md"))
    shutil.rmtree(folder)
    print(f"{archive.name}: {len(files)} files, {archive.stat().st_size:,} bytes")
    return archive


def unpack(archive: pathlib.Path, dest: pathlib.Path) -> None:
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            target = (dest / member.name).resolve()
            if not member.isfile() or dest.resolve() not in target.parents:
                sys.exit(f"batch.py unpack: {archive}: unexpected member {member.name}")
        tar.extractall(dest)
    print(f"{archive.name} -> {dest / archive.name[:-len('.tar.gz')]}")


def read_member(results: pathlib.Path, name: str) -> str:
    batch, _, inner = name.partition("/")
    folder = results / batch
    if folder.is_dir():
        return (folder / inner).read_text()
    archive = results / (batch + ".tar.gz")
    with tarfile.open(archive, "r:gz") as tar:
        member = tar.extractfile(f"{batch}/{inner}")
        if member is None:
            sys.exit(f"batch.py examples: {archive} holds no {inner}")
        return member.read().decode()


def examples(results: pathlib.Path) -> None:
    manifest = json.loads((results / "examples.json").read_text())
    out = results / manifest["events"]
    lines = []
    for example_set in manifest["sets"]:
        for name in example_set["files"]:
            for raw in read_member(results, name).splitlines():
                if raw.strip():
                    lines.append(json.dumps({"file": name, "event": json.loads(raw)}, separators=(",", ":")))
    out.write_text("\n".join(lines) + "\n")
    print(f"{out.name}: {len(lines)} events")


def main(argv):
    if len(argv) < 2 or argv[1] not in ("pack", "unpack", "examples"):
        sys.exit(__doc__)
    if argv[1] == "pack":
        for folder in argv[2:]:
            pack(pathlib.Path(folder))
    elif argv[1] == "unpack":
        if len(argv) < 3:
            sys.exit(__doc__)
        archive = pathlib.Path(argv[2])
        unpack(archive, pathlib.Path(argv[3]) if len(argv) > 3 else archive.parent)
    else:
        examples(pathlib.Path(argv[2]) if len(argv) > 2 else RESULTS)


if __name__ == "__main__":
    main(sys.argv)
