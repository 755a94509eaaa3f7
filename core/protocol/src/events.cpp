#include "shardwise/protocol/events.hpp"

#include "shardwise/spec/json.hpp"

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

namespace shardwise::protocol {

bool offloadStagingHas(const std::string& offloadStaging, const std::string& part)
{
    std::size_t begin = 0;
    while (begin <= offloadStaging.size()) {
        const auto end = std::min(offloadStaging.find("; ", begin), offloadStaging.size());
        if (offloadStaging.compare(begin, end - begin, part) == 0)
            return true;
        begin = end + 2;
    }
    return false;
}

bool ranFusedKernel(const std::string& kernels, const std::string& name)
{
    // "fused rotary + SwiGLU + cross-entropy on CUDA bf16, ATen elsewhere": the " + "-separated names
    // between "fused " and " on ".
    const std::string prefix = "fused ";
    if (kernels.compare(0, prefix.size(), prefix) != 0)
        return false;
    const auto listEnd = std::min(kernels.find(" on ", prefix.size()), kernels.size());
    std::size_t begin = prefix.size();
    while (begin <= listEnd) {
        const auto end = std::min(kernels.find(" + ", begin), listEnd);
        if (kernels.compare(begin, end - begin, name) == 0)
            return true;
        begin = end + 3;
    }
    return false;
}

using nlohmann::json;

namespace {

template <class... Ts> struct Overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

json memoryJson(const MemorySample& m)
{
    return json { { "allocated", m.allocated },          { "reserved", m.reserved },
                  { "peak_allocated", m.peakAllocated }, { "peak_reserved", m.peakReserved },
                  { "alloc_retries", m.allocRetries },   { "device_free", m.deviceFree },
                  { "device_total", m.deviceTotal },     { "host_peak_rss", m.hostPeakRss } };
}

json stateJson(const StateBytes& s)
{
    return json { { "device_params", s.deviceParams },
                  { "device_grads", s.deviceGrads },
                  { "device_optimizer", s.deviceOptimizer },
                  { "host_params", s.hostParams },
                  { "host_grads", s.hostGrads },
                  { "host_optimizer", s.hostOptimizer } };
}

// Typed field access that reports the event and field in its error.
class Fields {
public:
    Fields(const json& j, std::string event)
        : m_j(j)
        , m_event(std::move(event))
    {
    }

    template <typename T> T get(const char* name, T fallback) const
    {
        auto it = m_j.find(name);
        if (it == m_j.end() || it->is_null())
            return fallback;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            return integer<T>(name, *it);
        try {
            return it->get<T>();
        } catch (const json::exception&) {
            throw ProtocolError("event '" + m_event + "': field '" + name + "' has the wrong type: " + it->dump());
        }
    }

    template <typename T> T need(const char* name) const
    {
        auto it = m_j.find(name);
        if (it == m_j.end() || it->is_null())
            throw ProtocolError("event '" + m_event + "': missing field '" + name + "'");
        return get<T>(name, T {});
    }

    // An integer field: a JSON integer, or a float with no fraction, inside T's range. Anything else
    // (1e300, 2.5, a string) is refused by name; converting it unchecked is undefined behaviour.
    template <typename T> T integer(const char* name, const json& v) const
    {
        using Limits = std::numeric_limits<T>;
        bool ok = false;
        T x {};
        if (v.is_number_unsigned()) {
            const auto u = v.get<std::uint64_t>();
            ok = u <= static_cast<std::uint64_t>(Limits::max());
            x = static_cast<T>(u);
        } else if (v.is_number_integer()) {
            const auto i = v.get<std::int64_t>();
            ok = i >= static_cast<std::int64_t>(Limits::min()) && i <= static_cast<std::int64_t>(Limits::max());
            x = static_cast<T>(i);
        } else if (v.is_number_float()) {
            const double d = v.get<double>();
            // 2^53: every integer below it is exact in a double, and it is inside int64's range.
            ok = std::isfinite(d) && std::floor(d) == d && std::abs(d) <= 9007199254740992.0
                && d >= static_cast<double>(Limits::min()) && d <= static_cast<double>(Limits::max());
            if (ok)
                x = static_cast<T>(static_cast<std::int64_t>(d));
        } else {
            throw ProtocolError("event '" + m_event + "': field '" + name + "' has the wrong type: " + v.dump());
        }
        if (!ok)
            throw ProtocolError("event '" + m_event + "': field '" + name + "' is not an integer in ["
                                + std::to_string(Limits::min()) + ", " + std::to_string(Limits::max())
                                + "]: " + v.dump());
        return x;
    }

    const json* object(const char* name) const
    {
        auto it = m_j.find(name);
        if (it == m_j.end() || !it->is_object())
            return nullptr;
        return &*it;
    }

    const std::string& event() const { return m_event; }

private:
    const json& m_j;
    std::string m_event;
};

MemorySample memoryFrom(const json& j, const std::string& event)
{
    Fields f(j, event);
    MemorySample m;
    m.allocated = f.get<std::int64_t>("allocated", 0);
    m.reserved = f.get<std::int64_t>("reserved", 0);
    m.peakAllocated = f.get<std::int64_t>("peak_allocated", 0);
    m.peakReserved = f.get<std::int64_t>("peak_reserved", 0);
    m.allocRetries = f.get<std::int64_t>("alloc_retries", 0);
    m.deviceFree = f.get<std::int64_t>("device_free", -1);
    m.deviceTotal = f.get<std::int64_t>("device_total", -1);
    m.hostPeakRss = f.get<std::int64_t>("host_peak_rss", 0);
    return m;
}

StateBytes stateFrom(const json& j, const std::string& event)
{
    Fields f(j, event);
    StateBytes s;
    s.deviceParams = f.get<std::int64_t>("device_params", 0);
    s.deviceGrads = f.get<std::int64_t>("device_grads", 0);
    s.deviceOptimizer = f.get<std::int64_t>("device_optimizer", 0);
    s.hostParams = f.get<std::int64_t>("host_params", 0);
    s.hostGrads = f.get<std::int64_t>("host_grads", 0);
    s.hostOptimizer = f.get<std::int64_t>("host_optimizer", 0);
    return s;
}

json versionsJson(const SoftwareVersions& v)
{
    json j { { "runner", v.runner }, { "libtorch", v.libtorch }, { "cuda", v.cuda },
             { "nccl", v.nccl },     { "driver", v.driver },     { "compiler", v.compiler } };
    if (!v.kernels.empty())
        j["kernels"] = v.kernels;
    if (!v.activations.empty())
        j["activations"] = v.activations;
    if (!v.offloadStaging.empty())
        j["offload_staging"] = v.offloadStaging;
    // The harness's fields: written only when reported, so the native runner's lines do not change.
    const std::pair<const char*, const std::string*> framework[] = { { "backend", &v.backend },
                                                                     { "python", &v.python },
                                                                     { "torch", &v.torch },
                                                                     { "transformers", &v.transformers },
                                                                     { "model_impl", &v.modelImpl } };
    for (const auto& [key, value] : framework)
        if (!value->empty())
            j[key] = *value;
    return j;
}

SoftwareVersions versionsFrom(const json& j, const std::string& event)
{
    Fields f(j, event);
    return { f.get<std::string>("runner", ""),
             f.get<std::string>("libtorch", ""),
             f.get<std::string>("cuda", ""),
             f.get<std::string>("nccl", ""),
             f.get<std::string>("driver", ""),
             f.get<std::string>("compiler", ""),
             f.get<std::string>("kernels", ""),
             f.get<std::string>("activations", ""),
             f.get<std::string>("offload_staging", ""),
             f.get<std::string>("backend", ""),
             f.get<std::string>("python", ""),
             f.get<std::string>("torch", ""),
             f.get<std::string>("transformers", ""),
             f.get<std::string>("model_impl", "") };
}

} // namespace

std::string_view errorKindId(ErrorKind k)
{
    switch (k) {
    case ErrorKind::Oom:
        return "oom";
    case ErrorKind::Comm:
        return "comm";
    case ErrorKind::Config:
        return "config";
    case ErrorKind::Internal:
        return "internal";
    }
    return "internal";
}

std::optional<ErrorKind> errorKindFromId(std::string_view id)
{
    for (ErrorKind k : { ErrorKind::Oom, ErrorKind::Comm, ErrorKind::Config, ErrorKind::Internal })
        if (errorKindId(k) == id)
            return k;
    return std::nullopt;
}

json toJson(const Event& e)
{
    json j = std::visit(Overloaded {
                            [](const StartEvent& s) {
                                json out { { "event", "start" },
                                           { "rank", s.rank },
                                           { "world", s.world },
                                           { "local_rank", s.localRank },
                                           { "host", s.host },
                                           { "time", s.time },
                                           { "config", shardwise::toJson(s.config) },
                                           { "versions", versionsJson(s.versions) },
                                           { "allocator",
                                             { { "conf", s.allocator.conf },
                                               { "expandable_segments", s.allocator.expandableSegments } } },
                                           { "launcher", s.launcher },
                                           { "device_name", s.deviceName } };
                                // A start event read without a config (an early failure, an older runner) carries
                                // the default RunConfig, whose model is empty: write it back without one, so that
                                // serialize(parseEvent(x)) parses again.
                                if (s.config.model.layers == 0)
                                    out.erase("config");
                                if (s.allocator.memoryCapBytes > 0)
                                    out["allocator"]["memory_cap_bytes"] = s.allocator.memoryCapBytes;
                                return out;
                            },
                            [](const StepEvent& s) {
                                return json { { "event", "step" },
                                              { "rank", s.rank },
                                              { "step", s.step },
                                              { "timed", s.timed },
                                              { "loss", s.loss },
                                              { "step_time_s", s.stepTimeS },
                                              { "comm_time_s", s.commTimeS },
                                              { "exposed_comm_s", s.exposedCommS },
                                              { "tokens", s.tokens },
                                              { "memory", memoryJson(s.memory) },
                                              { "time", s.time } };
                            },
                            [](const SummaryEvent& s) {
                                json out { { "event", "summary" },
                                           { "rank", s.rank },
                                           { "world", s.world },
                                           { "warmup_steps", s.warmupSteps },
                                           { "timed_steps", s.timedSteps },
                                           { "median_step_s", s.medianStepS },
                                           { "p10_step_s", s.p10StepS },
                                           { "p90_step_s", s.p90StepS },
                                           { "tokens_per_s", s.tokensPerS },
                                           { "nccl_share", s.ncclShare },
                                           { "exposed_comm_share", s.exposedCommShare },
                                           { "losses", s.losses },
                                           { "memory", memoryJson(s.memory) },
                                           { "state", stateJson(s.state) },
                                           { "checkpoint_save_s", s.checkpointSaveS },
                                           { "checkpoints_written", s.checkpointsWritten },
                                           { "resumed_from_step", s.resumedFromStep },
                                           { "time", s.time } };
                                if (s.rehearsedWorld > 0)
                                    out["rehearsed_world"] = s.rehearsedWorld;
                                if (s.unitBufferPeak > 0)
                                    out["unit_buffer_peak"] = s.unitBufferPeak;
                                if (s.phasePeakAllocated)
                                    out["phase_peak_allocated"] = { { "forward", s.phasePeakAllocated->forward },
                                                                    { "backward", s.phasePeakAllocated->backward },
                                                                    { "optimizer", s.phasePeakAllocated->optimizer } };
                                return out;
                            },
                            [](const ErrorEvent& s) {
                                json out { { "event", "error" },
                                           { "rank", s.rank },
                                           { "kind", errorKindId(s.kind) },
                                           { "message", s.message },
                                           { "reserved_unallocated", s.reservedUnallocated },
                                           { "time", s.time } };
                                if (s.step)
                                    out["step"] = *s.step;
                                if (s.memory)
                                    out["memory"] = memoryJson(*s.memory);
                                return out;
                            },
                            [](const LogEvent& s) {
                                return json { { "event", "log" },
                                              { "rank", s.rank },
                                              { "level", s.level },
                                              { "message", s.message },
                                              { "time", s.time } };
                            },
                            [](const ProbeEvent& s) {
                                json results = json::array();
                                for (const ProbeResult& r : s.results)
                                    results.push_back(json { { "kind", r.kind },
                                                             { "bytes", r.bytes },
                                                             { "value", r.value },
                                                             { "unit", r.unit },
                                                             { "samples", r.samples } });
                                return json { { "event", "probe" },
                                              { "rank", s.rank },
                                              { "world", s.world },
                                              { "host", s.host },
                                              { "device_name", s.deviceName },
                                              { "versions", versionsJson(s.versions) },
                                              { "results", results },
                                              { "time", s.time } };
                            },
                        },
                        e);
    j["v"] = kProtocolVersion;
    return j;
}

std::string serialize(const Event& e)
{
    // Replace invalid UTF-8 (e.g. from a host name or a library message) rather than throwing.
    return toJson(e).dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

Event fromJson(const json& j)
{
    if (!j.is_object())
        throw ProtocolError("event line is not a JSON object");
    if (!j.contains("event") || !j.at("event").is_string())
        throw ProtocolError("event line has no string field 'event'");
    const std::string name = j.at("event").get<std::string>();
    Fields f(j, name);
    const int version = f.get<int>("v", 0);
    if (version < 1)
        throw ProtocolError("event '" + name + "': missing or invalid protocol version 'v'");
    if (version > kProtocolVersion)
        throw ProtocolError("event '" + name + "': protocol version " + std::to_string(version)
                            + " is newer than this reader's " + std::to_string(kProtocolVersion)
                            + "; update Shardwise");
    const int rank = f.need<int>("rank");
    const double time = f.get<double>("time", 0.0);

    if (name == "start") {
        StartEvent s;
        s.rank = rank;
        s.time = time;
        s.world = f.get<int>("world", 1);
        s.localRank = f.get<int>("local_rank", 0);
        s.host = f.get<std::string>("host", "");
        s.launcher = f.get<std::string>("launcher", "");
        s.deviceName = f.get<std::string>("device_name", "");
        if (const json* c = f.object("config")) {
            try {
                s.config = runConfigFromJson(*c, "config");
            } catch (const SpecError& e) {
                throw ProtocolError("event 'start': " + std::string(e.what()));
            }
        }
        if (const json* v = f.object("versions"))
            s.versions = versionsFrom(*v, "start.versions");
        if (const json* a = f.object("allocator")) {
            Fields af(*a, "start.allocator");
            s.allocator = { af.get<std::string>("conf", ""), af.get<bool>("expandable_segments", false),
                            af.get<std::int64_t>("memory_cap_bytes", 0) };
            if (s.allocator.memoryCapBytes < 0)
                throw ProtocolError("start.allocator.memory_cap_bytes: " + std::to_string(s.allocator.memoryCapBytes)
                                    + " is negative");
        }
        return s;
    }
    if (name == "step") {
        StepEvent s;
        s.rank = rank;
        s.time = time;
        s.step = f.need<int>("step");
        s.timed = f.get<bool>("timed", false);
        s.loss = f.get<double>("loss", 0.0);
        s.stepTimeS = f.get<double>("step_time_s", 0.0);
        s.commTimeS = f.get<double>("comm_time_s", 0.0);
        s.exposedCommS = f.get<double>("exposed_comm_s", 0.0);
        s.tokens = f.get<std::int64_t>("tokens", 0);
        if (const json* m = f.object("memory"))
            s.memory = memoryFrom(*m, "step.memory");
        return s;
    }
    if (name == "summary") {
        SummaryEvent s;
        s.rank = rank;
        s.time = time;
        s.world = f.get<int>("world", 1);
        s.warmupSteps = f.get<int>("warmup_steps", 0);
        s.timedSteps = f.get<int>("timed_steps", 0);
        s.medianStepS = f.need<double>("median_step_s");
        s.p10StepS = f.get<double>("p10_step_s", 0.0);
        s.p90StepS = f.get<double>("p90_step_s", 0.0);
        s.tokensPerS = f.need<double>("tokens_per_s");
        s.ncclShare = f.get<double>("nccl_share", 0.0);
        s.exposedCommShare = f.get<double>("exposed_comm_share", 0.0);
        s.losses = f.get<std::vector<double>>("losses", {});
        if (const json* m = f.object("memory"))
            s.memory = memoryFrom(*m, "summary.memory");
        if (const json* st = f.object("state"))
            s.state = stateFrom(*st, "summary.state");
        if (const json* ph = f.object("phase_peak_allocated")) {
            Fields pf(*ph, "summary.phase_peak_allocated");
            s.phasePeakAllocated = PhasePeaks { pf.need<std::int64_t>("forward"), pf.need<std::int64_t>("backward"),
                                                pf.need<std::int64_t>("optimizer") };
        }
        s.checkpointSaveS = f.get<double>("checkpoint_save_s", 0.0);
        s.checkpointsWritten = f.get<int>("checkpoints_written", 0);
        s.resumedFromStep = f.get<int>("resumed_from_step", -1);
        s.rehearsedWorld = f.get<int>("rehearsed_world", 0);
        s.unitBufferPeak = f.get<std::int64_t>("unit_buffer_peak", 0);
        if (s.rehearsedWorld < 0)
            throw ProtocolError("event 'summary': rehearsed_world must be >= 0, got "
                                + std::to_string(s.rehearsedWorld));
        return s;
    }
    if (name == "error") {
        ErrorEvent s;
        s.rank = rank;
        s.time = time;
        const std::string kind = f.need<std::string>("kind");
        const auto k = errorKindFromId(kind);
        if (!k)
            throw ProtocolError("event 'error': unknown kind '" + kind + "'; allowed: oom, comm, config, internal");
        s.kind = *k;
        s.message = f.get<std::string>("message", "");
        if (j.contains("step") && j.at("step").is_number_integer())
            s.step = f.get<int>("step", 0);
        if (const json* m = f.object("memory"))
            s.memory = memoryFrom(*m, "error.memory");
        s.reservedUnallocated = f.get<std::int64_t>("reserved_unallocated", 0);
        return s;
    }
    if (name == "log") {
        LogEvent s;
        s.rank = rank;
        s.time = time;
        s.level = f.get<std::string>("level", "info");
        s.message = f.get<std::string>("message", "");
        return s;
    }
    if (name == "probe") {
        ProbeEvent s;
        s.rank = rank;
        s.time = time;
        s.world = f.get<int>("world", 1);
        s.host = f.get<std::string>("host", "");
        s.deviceName = f.get<std::string>("device_name", "");
        if (const json* v = f.object("versions"))
            s.versions = versionsFrom(*v, "probe.versions");
        auto it = j.find("results");
        if (it != j.end() && !it->is_null()) {
            if (!it->is_array())
                throw ProtocolError("event 'probe': field 'results' is not an array");
            for (const json& r : *it) {
                if (!r.is_object())
                    throw ProtocolError("event 'probe': an entry of 'results' is not an object");
                Fields rf(r, "probe.results");
                s.results.push_back({ rf.need<std::string>("kind"), rf.get<std::int64_t>("bytes", 0),
                                      rf.need<double>("value"), rf.get<std::string>("unit", ""),
                                      rf.get<int>("samples", 0) });
            }
        }
        return s;
    }
    throw ProtocolError("unknown event '" + name + "'; known: start, step, summary, error, log, probe");
}

} // namespace

Event parseEvent(std::string_view line)
{
    json j;
    try {
        j = json::parse(line);
    } catch (const json::exception& e) {
        // Not only parse_error: a number too large for a double ("1e999") is out_of_range.406.
        throw ProtocolError(std::string("not a JSON line: ") + e.what());
    }
    return fromJson(j);
}

std::optional<Event> tryParseEvent(std::string_view line)
{
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] != '{')
        return std::nullopt;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j.contains("v"))
        return std::nullopt;
    return fromJson(j);
}

int eventRank(const Event& e)
{
    return std::visit([](const auto& x) { return x.rank; }, e);
}

std::string_view eventName(const Event& e)
{
    return std::visit(Overloaded { [](const StartEvent&) { return std::string_view("start"); },
                                   [](const StepEvent&) { return std::string_view("step"); },
                                   [](const SummaryEvent&) { return std::string_view("summary"); },
                                   [](const ErrorEvent&) { return std::string_view("error"); },
                                   [](const LogEvent&) { return std::string_view("log"); },
                                   [](const ProbeEvent&) { return std::string_view("probe"); } },
                      e);
}

} // namespace shardwise::protocol
