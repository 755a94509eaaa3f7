#include "internal.hpp"

#include "shardwise/spec/message.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace shardwise::cloud {

std::string renderText(const GkePreparation& p)
{
    std::ostringstream out;
    out << "GKE preparation: " << p.totalGpus << " x " << p.accelerator << " (" << countOf(p.nodes, "node") << " x "
        << countOf(p.gpusPerNode, "GPU") << ", " << p.machineType << ") in " << p.region << "\n";
    out << "GKE table transcribed " << p.tableTranscribed << "\n\nChecklist\n";
    for (const ChecklistItem& i : p.checklist) {
        const std::string marker = "[" + std::string(checkStatusId(i.status)) + "]";
        out << "  " << marker << std::string(marker.size() < 8 ? 8 - marker.size() : 1, ' ') << i.title << "\n";
        out << "          " << i.detail << "\n";
        if (!i.command.empty())
            out << "          $ " << i.command << "\n";
    }
    out << "\ngcloud commands\n";
    for (const GkeCommand& c : p.gcloud)
        out << "  # " << c.purpose << "\n  " << c.command << "\n";
    out << "\nkubectl commands\n";
    for (const GkeCommand& c : p.kubectl)
        out << "  # " << c.purpose << "\n  " << c.command << "\n";
    out << "\nJob manifest (save as " << p.manifestFile << ")\n---\n" << p.manifest;
    return out.str();
}

nlohmann::json toJson(const GkePreparation& p)
{
    nlohmann::json checklist = nlohmann::json::array();
    for (const ChecklistItem& i : p.checklist)
        checklist.push_back({ { "id", i.id },
                              { "status", checkStatusId(i.status) },
                              { "title", i.title },
                              { "detail", i.detail },
                              { "command", i.command } });
    const auto commands = [](const std::vector<GkeCommand>& cs) {
        nlohmann::json a = nlohmann::json::array();
        for (const GkeCommand& c : cs)
            a.push_back({ { "purpose", c.purpose }, { "command", c.command } });
        return a;
    };
    return { { "region", p.region },
             { "accelerator", p.accelerator },
             { "machine_series", p.machineSeries },
             { "machine_type", p.machineType },
             { "quota_metric", p.quotaMetric },
             { "zones", p.zones },
             { "gpus_per_node", p.gpusPerNode },
             { "nodes", p.nodes },
             { "total_gpus", p.totalGpus },
             { "cluster_name", p.clusterName },
             { "node_pool", p.nodePoolName },
             { "job_name", p.jobName },
             { "manifest_file", p.manifestFile },
             { "table_transcribed", p.tableTranscribed },
             { "checklist", checklist },
             { "gcloud", commands(p.gcloud) },
             { "kubectl", commands(p.kubectl) },
             { "manifest", p.manifest } };
}

} // namespace shardwise::cloud
