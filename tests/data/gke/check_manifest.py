# Reads a shardwise-cli gke manifest on stdin and checks its Kubernetes objects against the case:
# argv[1] = nodes, argv[2] = GPUs per node. Prints "ok".
import sys, yaml
docs = list(yaml.safe_load_all(sys.stdin))
assert [d["kind"] for d in docs] == ["Service", "Job"], [d.get("kind") for d in docs]
svc, job = docs
assert svc["spec"]["clusterIP"] == "None"
spec = job["spec"]
assert spec["completionMode"] == "Indexed"
assert spec["completions"] == spec["parallelism"] == int(sys.argv[1])
pod = spec["template"]["spec"]
assert pod["subdomain"] == svc["metadata"]["name"] == job["metadata"]["name"]
c = pod["containers"][0]
assert c["resources"]["limits"]["nvidia.com/gpu"] == int(sys.argv[2])
env = {e["name"]: e["value"] for e in c["env"]}
assert int(env["WORLD_SIZE"]) == int(sys.argv[1]) * int(sys.argv[2])
assert env["MASTER_ADDR"].startswith(job["metadata"]["name"] + "-0.")
assert "shardwise-runner" in c["args"][0]
assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
# NCCL's shared-memory transport needs more than the container default of 64 MiB at /dev/shm.
shm = [m for m in c.get("volumeMounts", []) if m["mountPath"] == "/dev/shm"]
assert len(shm) == 1, c.get("volumeMounts")
volume = {v["name"]: v for v in pod.get("volumes", [])}[shm[0]["name"]]
assert volume["emptyDir"]["medium"] == "Memory", volume
print("ok")
