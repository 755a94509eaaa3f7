#include "shardwise/session/node_facts_json.hpp"

namespace shardwise::session {

nlohmann::json nodeFactsToJson(const dispatch::NodeFacts& f)
{
    nlohmann::json gpus = nlohmann::json::array();
    for (const dispatch::NodeGpu& g : f.gpus)
        gpus.push_back({ { "index", g.index },
                         { "name", g.name },
                         { "memory_bytes", g.memoryBytes },
                         { "pci_bus_id", g.pciBusId } });
    return { { "hostname", f.hostname },
             { "os", f.os },
             { "arch", f.arch },
             { "cpu_cores", f.cpuCores },
             { "ram_bytes", f.ramBytes },
             { "gpus", gpus },
             { "driver", f.driver },
             { "cuda_driver_api", f.cudaDriverApi },
             { "cuda_toolkit", f.cudaToolkit },
             { "nccl", f.nccl },
             { "python", f.python },
             { "torch", f.torch },
             { "torch_cuda", f.torchCuda },
             { "python_torch", f.pythonTorch },
             { "torch_python", f.torchPython },
             { "transformers", f.transformers },
             { "torch_config_dir", f.torchConfigDir },
             { "cmake", f.cmake },
             { "compiler", f.compiler },
             { "problems", f.problems } };
}

namespace {

template <typename T> void read(const nlohmann::json& j, const char* key, T& out)
{
    const auto it = j.find(key);
    if (it == j.end())
        return;
    if constexpr (std::is_same_v<T, std::string>) {
        if (it->is_string())
            out = it->get<std::string>();
    } else {
        if (it->is_number_integer())
            out = it->get<T>();
    }
}

} // namespace

dispatch::NodeFacts nodeFactsFromJson(const nlohmann::json& j)
{
    dispatch::NodeFacts f;
    if (!j.is_object())
        return f;
    read(j, "hostname", f.hostname);
    read(j, "os", f.os);
    read(j, "arch", f.arch);
    read(j, "cpu_cores", f.cpuCores);
    read(j, "ram_bytes", f.ramBytes);
    read(j, "driver", f.driver);
    read(j, "cuda_driver_api", f.cudaDriverApi);
    read(j, "cuda_toolkit", f.cudaToolkit);
    read(j, "nccl", f.nccl);
    read(j, "python", f.python);
    read(j, "torch", f.torch);
    read(j, "torch_cuda", f.torchCuda);
    read(j, "python_torch", f.pythonTorch);
    read(j, "torch_python", f.torchPython);
    read(j, "transformers", f.transformers);
    read(j, "torch_config_dir", f.torchConfigDir);
    read(j, "cmake", f.cmake);
    read(j, "compiler", f.compiler);
    if (const auto gpus = j.find("gpus"); gpus != j.end() && gpus->is_array()) {
        for (const auto& g : *gpus) {
            if (!g.is_object())
                continue;
            dispatch::NodeGpu gpu;
            read(g, "index", gpu.index);
            read(g, "name", gpu.name);
            read(g, "memory_bytes", gpu.memoryBytes);
            read(g, "pci_bus_id", gpu.pciBusId);
            f.gpus.push_back(gpu);
        }
    }
    if (const auto problems = j.find("problems"); problems != j.end() && problems->is_array())
        for (const auto& p : *problems)
            if (p.is_string())
                f.problems.push_back(p.get<std::string>());
    return f;
}

} // namespace shardwise::session
