#!/usr/bin/env python3
"""Checks the golden torchtitan TOML, FSDP2 scripts and launch lines of tests/data/framework_configs.

shardwise.toml: parsed by tomllib (Python 3.11); every section and key must be one torchtitan 0.2 defines
in torchtitan/config/job_config.py, with its type and allowed values, and the data-parallel degrees must
multiply to the case's world. train_fsdp2.py: compiles. launch.sh: `bash -n` accepts it.
"""
import json
import pathlib
import subprocess
import sys
import tomllib

INT, BOOL, STR, NUM = int, bool, str, (int, float)
# torchtitan/config/job_config.py (0.2): section -> key -> (type, allowed values or None)
TORCHTITAN = {
    "job": {"description": (STR, None)},
    # Model, lines 91-98 at v0.2.0: without it torchtitan trains name "llama3", flavor "debugmodel".
    "model": {"name": (STR, None), "flavor": (STR, None)},
    "training": {
        "local_batch_size": (INT, None),
        "global_batch_size": (INT, None),
        "seq_len": (INT, None),
        "max_norm": (NUM, None),
        "dtype": (STR, {"bfloat16", "float32"}),  # line 224 at v0.2.0
        "mixed_precision_param": (STR, {"bfloat16", "float32"}),
        "mixed_precision_reduce": (STR, {"float32"}),
        "enable_cpu_offload": (BOOL, None),
    },
    "parallelism": {
        "data_parallel_replicate_degree": (INT, None),
        "data_parallel_shard_degree": (INT, None),
        "fsdp_reshard_after_forward": (STR, {"default", "always", "never"}),
        "tensor_parallel_degree": (INT, None),
        "pipeline_parallel_degree": (INT, None),
        "context_parallel_degree": (INT, None),
    },
    "activation_checkpoint": {
        "mode": (STR, {"selective", "full", "none"}),
        "selective_ac_option": (STR, None),
    },
    "compile": {"enable": (BOOL, None), "components": (list, None)},
}


def check_toml(case: pathlib.Path, failures: list) -> None:
    path = case / "shardwise.toml"
    if not path.exists():
        return
    with path.open("rb") as f:
        doc = tomllib.load(f)
    for section, keys in doc.items():
        if section not in TORCHTITAN:
            failures.append(f"{path}: [{section}] is not a torchtitan section")
            continue
        for key, value in keys.items():
            spec = TORCHTITAN[section].get(key)
            if spec is None:
                failures.append(f"{path}: {section}.{key} is not a torchtitan key")
                continue
            kind, allowed = spec
            if kind is INT and isinstance(value, bool) or not isinstance(value, kind):
                failures.append(f"{path}: {section}.{key} has the wrong type: {value!r}")
            elif allowed is not None and value not in allowed:
                failures.append(f"{path}: {section}.{key} = {value!r} is not one of {sorted(allowed)}")
    components = doc.get("compile", {}).get("components", [])
    if not set(components) <= {"model", "loss"}:
        failures.append(f"{path}: compile.components {components!r}")
    spec = json.loads((case / "input.json").read_text())
    cluster = spec.get("cluster", {})
    world = cluster.get("gpus_per_node", 1) * cluster.get("nodes", 1)
    par = doc["parallelism"]
    if par["data_parallel_replicate_degree"] * par["data_parallel_shard_degree"] != world:
        failures.append(f"{path}: data-parallel degrees do not multiply to the world of {world}")
    training = spec.get("training", {})
    model = doc.get("model", {})
    if "name" not in model or "flavor" not in model:
        failures.append(f"{path}: no [model] name and flavor: torchtitan would train llama3 debugmodel")
    elif (model["name"], model["flavor"]) == ("llama3", "debugmodel"):
        failures.append(f"{path}: [model] is torchtitan's debug model, not {spec.get('model')}")
    want_dtype = "bfloat16" if training.get("precision", "bf16") == "bf16" else "float32"
    if doc["training"].get("dtype") != want_dtype:
        failures.append(f"{path}: training.dtype {doc['training'].get('dtype')!r}, the plan's precision is {want_dtype}")
    expected = doc["training"]["local_batch_size"] * world * training.get("grad_accumulation", 1)
    if doc["training"]["global_batch_size"] != expected:
        failures.append(f"{path}: global_batch_size {doc['training']['global_batch_size']} != {expected}")


def check_python(case: pathlib.Path, failures: list) -> None:
    path = case / "train_fsdp2.py"
    if path.exists():
        try:
            compile(path.read_text(), str(path), "exec")
        except SyntaxError as e:
            failures.append(f"{path}: {e}")


def check_launch(case: pathlib.Path, failures: list) -> None:
    path = case / "launch.sh"
    if path.exists():
        r = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{path}: bash -n: {r.stderr.strip()}")


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    cases = sorted(p for p in root.iterdir() if (p / "input.json").exists())
    failures: list = []
    tomls = 0
    for case in cases:
        check_toml(case, failures)
        check_python(case, failures)
        check_launch(case, failures)
        tomls += (case / "shardwise.toml").exists()
    if tomls == 0:
        failures.append("no shardwise.toml found")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"checked {len(cases)} case(s), {tomls} torchtitan config(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
