#include "shardwise/spec/framework.hpp"

namespace shardwise {

namespace {
// Default versions: the releases whose source and documentation docs/formulas.md cites.
constexpr std::array<FrameworkTraits, kFrameworkCount> kTable{{
    {Framework::Native, "native", "Shardwise runner", ""},
    {Framework::DeepSpeed, "deepspeed", "DeepSpeed", "0.16"},
    {Framework::Fsdp2, "fsdp2", "PyTorch FSDP2", "2.11"},
    {Framework::Torchtitan, "torchtitan", "torchtitan", "0.2"},
}};
} // namespace

const std::array<FrameworkTraits, kFrameworkCount>& allFrameworks() { return kTable; }

const FrameworkTraits& traits(Framework f)
{
    for (const auto& t : kTable)
        if (t.framework == f)
            return t;
    return kTable.front();
}

std::string_view frameworkId(Framework f) { return traits(f).id; }

std::optional<Framework> frameworkFromId(std::string_view id)
{
    for (const auto& t : kTable)
        if (t.id == id)
            return t.framework;
    return std::nullopt;
}

std::string frameworkIdList()
{
    std::string out;
    for (const auto& t : kTable) {
        if (!out.empty())
            out += ", ";
        out += t.id;
    }
    return out;
}

bool frameworkSupports(Framework f, Strategy s)
{
    switch (f) {
    case Framework::Native:
        return true;
    case Framework::DeepSpeed:
        return traits(s).family == StrategyFamily::DeepSpeedZero;
    case Framework::Fsdp2:
    case Framework::Torchtitan:
        return s == Strategy::Zero0 || traits(s).family == StrategyFamily::Fsdp2;
    }
    return false;
}

std::string FrameworkTarget::effectiveVersion() const
{
    return version.empty() ? std::string(traits(framework).defaultVersion) : version;
}

std::string_view backendId(RunBackend b) { return b == RunBackend::Native ? "native" : "torch"; }

std::optional<RunBackend> backendFromId(std::string_view id)
{
    if (id == "native")
        return RunBackend::Native;
    if (id == "torch")
        return RunBackend::Torch;
    return std::nullopt;
}

} // namespace shardwise
