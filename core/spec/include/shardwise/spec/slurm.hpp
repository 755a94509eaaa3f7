#pragma once
// Slurm's task variables as the torchrun environment contract every Shardwise rank reads (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; docs/protocol.md). srun starts
// one task per rank and sets SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_TASKS_PER_NODE and
// SLURM_JOB_NODELIST (Slurm's srun and sbatch manuals, "OUTPUT ENVIRONMENT VARIABLES"); it sets no
// rendezvous address, so the first host of the job's node list is the head and the port comes from
// the job id. A variable the launcher already set wins: torchrun under srun keeps its own contract.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace shardwise {

using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

// The torchrun variables to set, each derived from Slurm's where the torchrun one is absent and
// SLURM_PROCID says this is an srun task; empty outside Slurm. Throws SpecError (field = the Slurm
// variable) when a Slurm value cannot be read or when the nodes run different numbers of tasks.
std::map<std::string, std::string> torchrunFromSlurm(const EnvironmentLookup& lookup);

// The first host of a Slurm hostlist expression: "gpu[007-010,3],login1" -> "gpu007",
// "rack[1-2]-n[01-04]" -> "rack1-n01". Throws SpecError on an unbalanced bracket or an empty list.
std::string firstSlurmHost(std::string_view nodeList);

// The number of tasks every node runs, from SLURM_TASKS_PER_NODE ("8(x2)", "4,4", "8"); nullopt
// when the nodes differ ("4,2").
std::optional<int> uniformTasksPerNode(std::string_view tasksPerNode);

// The rendezvous port a Slurm job uses when MASTER_PORT is not set: 15000 + job id mod 20000, so two
// jobs sharing a head node rarely collide and every task of one job agrees without talking.
int slurmRendezvousPort(long long jobId);

} // namespace shardwise
