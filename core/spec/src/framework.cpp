#include "shardwise/spec/framework.hpp"

namespace shardwise {

namespace {
// Default versions: the releases whose source and documentation docs/formulas.md cites.
constexpr std::array<FrameworkTraits, kFrameworkCount> kTable { {
    { Framework::Native, "native", "Shardwise runner", "" },
    { Framework::DeepSpeed, "deepspeed", "DeepSpeed", "0.16" },
    { Framework::Fsdp2, "fsdp2", "PyTorch FSDP2", "2.11" },
    { Framework::Torchtitan, "torchtitan", "torchtitan", "0.2" },
} };
} // namespace

const std::array<FrameworkTraits, kFrameworkCount>& allFrameworks()
{
    return kTable;
}

const FrameworkTraits& traits(Framework f)
{
    for (const auto& t : kTable)
        if (t.framework == f)
            return t;
    return kTable.front();
}

std::string_view frameworkId(Framework f)
{
    return traits(f).id;
}

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

namespace {

// MAJOR.MINOR[.PATCH] with an optional local suffix (2.11.0+cu130); nullopt when it does not read so.
std::optional<std::pair<int, int>> majorMinor(const std::string& v)
{
    int major = 0, minor = 0;
    std::size_t i = 0;
    const auto digits = [&](int& into) {
        const std::size_t begin = i;
        while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - begin < 6)
            into = into * 10 + (v[i++] - '0');
        return i > begin;
    };
    if (!digits(major) || i >= v.size() || v[i] != '.')
        return std::nullopt;
    ++i;
    if (!digits(minor))
        return std::nullopt;
    if (i < v.size() && v[i] == '.') {
        int patch = 0;
        ++i;
        if (!digits(patch))
            return std::nullopt;
    }
    if (i < v.size() && v[i] != '+' && v[i] != '-' && v[i] != 'a' && v[i] != 'b' && v[i] != 'r')
        return std::nullopt;
    return std::pair { major, minor };
}

} // namespace

std::optional<std::string> frameworkVersionProblem(const FrameworkTarget& t)
{
    if (t.framework == Framework::Native || t.version.empty())
        return std::nullopt;
    const auto mm = majorMinor(t.version);
    if (!mm)
        return "'" + t.version + "' is not a version (expected MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. "
            + std::string(traits(t.framework).defaultVersion) + ")";
    const std::pair<int, int> oldest = t.framework == Framework::DeepSpeed ? std::pair { 0, 10 }
        : t.framework == Framework::Fsdp2                                  ? std::pair { 2, 4 }
                                                                           : std::pair { 0, 1 };
    if (*mm < oldest) {
        const std::string what = t.framework == Framework::DeepSpeed ? "DeepSpeed's bf16 ZeRO stages"
            : t.framework == Framework::Fsdp2                        ? "PyTorch's fully_shard (FSDP2)"
                                                                     : "torchtitan's FSDP2 training configs";
        return "version " + t.version + " predates " + what + ": the planner models " + std::to_string(oldest.first)
            + "." + std::to_string(oldest.second) + " or later";
    }
    return std::nullopt;
}

std::string_view backendId(RunBackend b)
{
    return b == RunBackend::Native ? "native" : "torch";
}

std::optional<RunBackend> backendFromId(std::string_view id)
{
    if (id == "native")
        return RunBackend::Native;
    if (id == "torch")
        return RunBackend::Torch;
    return std::nullopt;
}

} // namespace shardwise
