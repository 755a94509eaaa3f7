#include "shardwise/diagnose/log_classifier.hpp"

#include "utf8_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>

namespace shardwise::diagnose {

namespace {

using nlohmann::json;

bool has(std::string_view line, std::string_view what)
{
    return line.find(what) != std::string_view::npos;
}

bool hasNoCase(std::string_view line, std::string_view what)
{
    const auto it = std::search(line.begin(), line.end(), what.begin(), what.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it != line.end();
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// PyTorch >= 2.2 prefixes a rank's stderr lines with "[rankN]:" when launched by torchrun; torchrun's
// --tee / --redirects prefix "[defaultN]:" (local rank, so not used for attribution).
std::optional<int> rankPrefix(std::string_view line)
{
    line = trim(line);
    if (!line.starts_with("[rank"))
        return std::nullopt;
    int rank = 0;
    const char* begin = line.data() + 5;
    const char* end = line.data() + line.size();
    const auto [ptr, ec] = std::from_chars(begin, end, rank);
    if (ec != std::errc() || ptr == begin || ptr == end || *ptr != ']')
        return std::nullopt;
    return rank;
}

std::optional<std::smatch> search(const std::string& text, const std::regex& re)
{
    std::smatch m;
    if (std::regex_search(text, m, re))
        return m;
    return std::nullopt;
}

std::optional<std::int64_t> integer(const std::string& s)
{
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

void putSize(json& facts, const char* key, const std::string& text, const std::regex& re)
{
    if (auto m = search(text, re))
        if (auto bytes = parseByteSize((*m)[1].str(), (*m)[2].str()))
            facts[key] = *bytes;
}

#define SW_SIZE R"(([0-9]+(?:\.[0-9]+)?) ?(bytes|B|KiB|MiB|GiB|TiB))"

std::optional<LogFinding> cudaOutOfMemory(const std::string& text)
{
    static const std::regex kTried("Tried to allocate " SW_SIZE);
    static const std::regex kTotalNew("total capacity of " SW_SIZE);
    static const std::regex kTotalOld(SW_SIZE " total capacity");
    static const std::regex kFreeNew("of which " SW_SIZE " is free");
    static const std::regex kFreeOld(SW_SIZE " free");
    static const std::regex kInUse("this process has " SW_SIZE " memory in use");
    static const std::regex kAllocatedNew(SW_SIZE " is allocated by PyTorch");
    static const std::regex kAllocatedOld(SW_SIZE " already allocated");
    static const std::regex kReservedUnallocated(SW_SIZE " is reserved by PyTorch but unallocated");
    static const std::regex kReservedTotal(SW_SIZE " reserved in total by PyTorch");
    static const std::regex kGpu(R"(GPU ([0-9]+))");
    static const std::regex kConfVar(R"((PYTORCH_(?:CUDA_)?ALLOC_CONF))");
    static const std::regex kException(R"(([A-Za-z_][A-Za-z0-9_.]*(?:OutOfMemoryError|RuntimeError|Error))\s*:)");

    LogFinding f;
    f.kind = FailureKind::OutOfMemory;
    json& facts = f.facts;
    facts["device"] = "cuda";
    putSize(facts, "tried_to_allocate_bytes", text, kTried);
    putSize(facts, "total_capacity_bytes", text, has(text, "total capacity of") ? kTotalNew : kTotalOld);
    putSize(facts, "free_bytes", text, has(text, "of which") ? kFreeNew : kFreeOld);
    putSize(facts, "process_in_use_bytes", text, kInUse);
    putSize(facts, "allocated_by_pytorch_bytes", text,
            has(text, "is allocated by PyTorch") ? kAllocatedNew : kAllocatedOld);
    putSize(facts, "reserved_unallocated_bytes", text, kReservedUnallocated);
    putSize(facts, "reserved_by_pytorch_bytes", text, kReservedTotal);
    // PyTorch < 2.1 printed only the reserved total; what is reserved but unallocated is the difference.
    if (!facts.contains("reserved_unallocated_bytes") && facts.contains("reserved_by_pytorch_bytes")
        && facts.contains("allocated_by_pytorch_bytes"))
        facts["reserved_unallocated_bytes"]
            = std::max<std::int64_t>(0,
                                     facts["reserved_by_pytorch_bytes"].get<std::int64_t>()
                                         - facts["allocated_by_pytorch_bytes"].get<std::int64_t>());
    if (auto m = search(text, kGpu))
        if (auto g = integer((*m)[1].str()))
            facts["gpu"] = *g;
    if (auto m = search(text, kConfVar))
        facts["alloc_conf_variable"] = (*m)[1].str();
    if (auto m = search(text, kException))
        if (has((*m)[1].str(), "OutOfMemoryError") || (*m)[1].str() == "RuntimeError")
            facts["exception"] = (*m)[1].str();
    f.message = "CUDA out of memory";
    if (auto m = search(text, kTried))
        f.message += " (tried to allocate " + (*m)[1].str() + " " + (*m)[2].str() + ")";
    return f;
}

std::optional<LogFinding> outOfMemory(const std::string& text)
{
    // The kernel's OOM killer (dmesg / journalctl -k): host memory, and the victim dies by SIGKILL.
    if (has(text, "Killed process") || has(text, "oom-kill") || has(text, "Out of memory: Kill")) {
        LogFinding f;
        f.kind = FailureKind::LostRank;
        f.facts["host_oom_killer"] = true;
        f.message = "the kernel's OOM killer killed a process (host memory exhausted)";
        return f;
    }
    if (has(text, "DefaultCPUAllocator: can't allocate memory")) {
        LogFinding f;
        f.kind = FailureKind::OutOfMemory;
        f.facts["device"] = "cpu";
        f.message = "host (CPU) memory allocation failed";
        return f;
    }
    if (has(text, "CUDA out of memory") || has(text, "OutOfMemoryError") || has(text, "CUDA error: out of memory")
        || has(text, "'out of memory'"))
        return cudaOutOfMemory(text);
    return std::nullopt;
}

std::optional<LogFinding> watchdog(const std::string& text)
{
    static const std::regex kRank(R"(Rank ([0-9]+)\])");
    static const std::regex kSeq(R"(SeqNum=([0-9]+))");
    static const std::regex kOp(R"(OpType=([A-Z_]+))");
    static const std::regex kNumelIn(R"(NumelIn=([0-9]+))");
    static const std::regex kNumelOut(R"(NumelOut=([0-9]+))");
    static const std::regex kTimeout(R"(Timeout\(ms\)=([0-9]+))");
    static const std::regex kRanFor(R"(ran for ([0-9]+) milliseconds)");
    static const std::regex kGloo(R"(Timed out waiting ([0-9]+)ms for (recv|send) operation)");

    const bool nccl = has(text, "Watchdog caught collective operation timeout");
    // "watchdog thread terminated with exception" also wraps NCCL errors the watchdog merely relays.
    const bool ncclFollowUp = has(text, "Some NCCL operations have failed or timed out")
        || has(text, "Timeout at NCCL work") || has(text, "watchdog got stuck")
        || (has(text, "watchdog thread terminated with exception") && !has(text, "NCCL error"));
    const auto gloo = search(text, kGloo);
    if (!nccl && !ncclFollowUp && !gloo)
        return std::nullopt;
    LogFinding f;
    f.kind = FailureKind::WatchdogTimeout;
    f.isSymptom = true;
    if (auto m = search(text, kRank))
        if (auto r = integer((*m)[1].str()))
            f.rank = static_cast<int>(*r);
    const auto put = [&](const char* key, const std::regex& re) {
        if (auto m = search(text, re))
            if (auto v = integer((*m)[1].str()))
                f.facts[key] = *v;
    };
    put("seq_num", kSeq);
    put("numel_in", kNumelIn);
    put("numel_out", kNumelOut);
    put("timeout_ms", kTimeout);
    put("ran_for_ms", kRanFor);
    if (auto m = search(text, kOp))
        f.facts["op_type"] = (*m)[1].str();
    if (gloo) {
        f.facts["backend"] = "gloo";
        if (auto v = integer((*gloo)[1].str()))
            f.facts["timeout_ms"] = *v;
        f.message = "gloo " + (*gloo)[2].str() + " timed out after " + (*gloo)[1].str() + " ms";
    } else if (nccl) {
        f.facts["backend"] = "nccl";
        f.message = "collective " + f.facts.value("op_type", std::string("operation"));
        if (f.facts.contains("seq_num"))
            f.message += " (SeqNum " + std::to_string(f.facts["seq_num"].get<std::int64_t>()) + ")";
        f.message += " timed out";
        if (f.facts.contains("ran_for_ms"))
            f.message += " after " + std::to_string(f.facts["ran_for_ms"].get<std::int64_t>()) + " ms";
    } else {
        f.facts["backend"] = "nccl";
        f.message = "NCCL watchdog reported a timed-out or failed collective";
    }
    return f;
}

std::optional<LogFinding> launcherArguments(const std::string& text)
{
    static const std::regex kUnrecognized(R"(([^\s:\]]+): error: unrecognized arguments: (.*)$)");
    const auto m = search(text, kUnrecognized);
    if (!m)
        return std::nullopt;
    LogFinding f;
    f.kind = FailureKind::LauncherArguments;
    const std::string program = (*m)[1].str();
    const std::string arguments = std::string(trim((*m)[2].str()));
    f.facts["program"] = program;
    f.facts["arguments"] = arguments;
    // torch.distributed.launch passes --local_rank (--local-rank since 2.0) unless --use-env; DeepSpeed's
    // launcher passes --local_rank unless --no_local_rank. torchrun passes nothing and rejects --use_env.
    f.facts["injected_local_rank"] = has(arguments, "--local_rank") || has(arguments, "--local-rank");
    f.facts["rejected_use_env"] = has(arguments, "--use_env") || has(arguments, "--use-env");
    f.message = program + " rejected the arguments " + arguments;
    return f;
}

std::optional<LogFinding> lostConnectionOrKill(const std::string& text)
{
    static const std::regex kSshHost(R"(Connection to ([A-Za-z0-9_.-]+) closed by remote host)");
    static const std::regex kDispatcherNode(R"(node ([A-Za-z0-9_.-]+):)");
    static const std::regex kAgentSignal(R"(got signal: ([0-9]+))");
    LogFinding f;
    f.kind = FailureKind::LostRank;
    if (hasNoCase(text, "connection lost") || has(text, "closed by remote host")
        || has(text, "client_loop: send disconnect") || (has(text, "Timeout, server") && has(text, "not responding"))) {
        f.facts["ssh"] = true;
        if (auto m = search(text, kSshHost))
            f.node = (*m)[1].str();
        else if (auto n = search(text, kDispatcherNode))
            f.node = (*n)[1].str();
        f.message = "SSH connection to the node lost";
        return f;
    }
    if (auto m = search(text, kAgentSignal); m && has(text, "SignalException")) {
        if (auto s = integer((*m)[1].str()))
            f.facts["signal"] = *s;
        f.message = "the launcher itself received signal " + (*m)[1].str()
            + " (stopped from outside: preemption, a scheduler's cancel or a kill)";
        return f;
    }
    if (has(text, "death signal, shutting down workers")) {
        f.message = "the launcher received a death signal and shut its workers down";
        return f;
    }
    if (trim(text) == "Killed") {
        f.facts["signal"] = 9;
        f.message = "process killed (SIGKILL)";
        return f;
    }
    return std::nullopt;
}

bool reportsVanishedPeer(std::string_view text)
{
    return has(text, "remote process exited or there was a network error") || has(text, "ncclRemoteError")
        || has(text, "Connection closed by peer") || has(text, "Connection closed by remote peer")
        || has(text, "Connection reset by peer") || has(text, "Broken pipe") || has(text, "communicator was aborted");
}

std::optional<LogFinding> communication(const std::string& text)
{
    static const std::regex kNcclError(
        R"(NCCL error(?: in: [^,]*)?,\s*([^,]+?)(?:\s*\(run with NCCL_DEBUG=INFO for details\))?(?:,|$))");
    static const std::regex kNcclVersion(R"(NCCL version ([0-9.]+))");
    static const std::regex kNcclResult(
        R"((nccl(?:SystemError|InternalError|UnhandledCudaError|InvalidUsage|InvalidArgument|RemoteError)))");
    LogFinding f;
    f.kind = FailureKind::Communication;
    const bool ncclError = has(text, "NCCL error");
    const auto result = search(text, kNcclResult);
    const bool ncclWarnFailure = has(text, "NCCL WARN")
        && (reportsVanishedPeer(text) || (has(text, "Connect to") && has(text, "failed"))
            || has(text, "no socket interface found") || has(text, "Bootstrap : no socket"));
    if (ncclError || result || ncclWarnFailure) {
        f.facts["backend"] = "nccl";
        if (auto m = search(text, kNcclVersion))
            f.facts["nccl_version"] = (*m)[1].str();
        if (result)
            f.facts["nccl_result"] = (*result)[1].str();
        if (ncclError)
            if (auto m = search(text, kNcclError))
                f.facts["nccl_error"] = std::string(trim((*m)[1].str()));
        f.isSymptom = reportsVanishedPeer(text);
        f.message = f.isSymptom ? "NCCL reports a peer that exited or a network error"
                                : "NCCL error: "
                + f.facts.value("nccl_error", f.facts.value("nccl_result", detail::utf8Prefix(trim(text), 160)));
        return f;
    }
    if (reportsVanishedPeer(text)) {
        f.isSymptom = true;
        f.message = "a peer closed the connection";
        return f;
    }
    if (has(text, "DistStoreError") || has(text, "DistNetworkError") || has(text, "waiting for clients")
        || has(text, "The client socket has failed to connect") || has(text, "The client socket has timed out")
        || has(text, "RendezvousTimeoutError") || has(text, "RendezvousConnectionError")) {
        f.facts["phase"] = "rendezvous";
        f.message = "rendezvous failed: the ranks could not meet at MASTER_ADDR:MASTER_PORT";
        return f;
    }
    return std::nullopt;
}

std::optional<LogFinding> crash(const std::string& text)
{
    static const std::regex kCudaError(R"(CUDA error: ([^\n]*))");
    static const std::regex kException(
        R"(^(?:\[rank[0-9]+\]:\s*)?([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception))(?::\s*(.*))?$)");
    LogFinding f;
    f.kind = FailureKind::Internal;
    if (auto m = search(text, kCudaError)) {
        f.facts["cuda_error"] = std::string(trim((*m)[1].str()));
        f.message = "CUDA error: " + f.facts["cuda_error"].get<std::string>();
        return f;
    }
    if (has(text, "Segmentation fault") || has(text, "Fatal Python error") || has(text, "Bus error")) {
        f.message = detail::utf8Prefix(trim(text), 200);
        return f;
    }
    if (auto m = search(text, kException)) {
        const std::string name = (*m)[1].str();
        // torchrun's own summary exception restates its workers' failures; the block is read separately.
        if (has(name, "ChildFailedError") || has(name, "SignalException"))
            return std::nullopt;
        f.facts["exception"] = name;
        f.message = detail::utf8Prefix(trim(text), 200);
        return f;
    }
    return std::nullopt;
}

struct SummaryEntry {
    std::size_t firstLine = 0;
    std::vector<std::size_t> lines;
    std::string time, host, rank, exitcode, traceback;
    bool torchrunRootCause = false;
};

std::string_view fieldValue(std::string_view line, std::string_view name)
{
    const std::string_view t = trim(line);
    if (!t.starts_with(name))
        return {};
    std::string_view rest = trim(t.substr(name.size()));
    if (!rest.starts_with(":"))
        return {};
    return trim(rest.substr(1));
}

bool isEntryHeader(std::string_view line)
{
    const std::string_view t = trim(line);
    if (t.size() < 4 || t.front() != '[' || !t.ends_with("]:"))
        return false;
    return std::all_of(t.begin() + 1, t.end() - 2, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string_view signalName(int sig)
{
    switch (sig) {
    case 1:
        return "SIGHUP";
    case 2:
        return "SIGINT";
    case 6:
        return "SIGABRT";
    case 7:
        return "SIGBUS";
    case 9:
        return "SIGKILL";
    case 11:
        return "SIGSEGV";
    case 15:
        return "SIGTERM";
    default:
        return "signal";
    }
}

LogFinding fromSummaryEntry(const SummaryEntry& e, int yearWhenMissing)
{
    static const std::regex kRank(R"(^([0-9]+))");
    static const std::regex kExit(R"(^(-?[0-9]+))");
    LogFinding f;
    f.line = e.firstLine;
    f.moreLines = e.lines;
    f.node = e.host;
    if (auto m = search(e.rank, kRank))
        if (auto r = integer((*m)[1].str()))
            f.rank = static_cast<int>(*r);
    if (!e.time.empty())
        f.time = parseLogTime(e.time, yearWhenMissing);
    f.facts["torchrun_summary"] = true;
    if (e.torchrunRootCause)
        f.facts["torchrun_first_observed"] = true;
    std::int64_t code = 0;
    if (auto m = search(e.exitcode, kExit))
        code = integer((*m)[1].str()).value_or(0);
    // torchrun reports a worker killed by signal N as exit code -N.
    if (code < 0) {
        const int sig = static_cast<int>(-code);
        f.facts["signal"] = sig;
        const std::string name(signalName(sig));
        if (sig == 9) {
            f.kind = FailureKind::LostRank;
            f.message = "killed by SIGKILL (torchrun: exitcode -9)";
        } else if (sig == 15 || sig == 2 || sig == 1) {
            f.kind = FailureKind::LostRank;
            f.isSymptom = true;
            f.message = "terminated by " + name + " (torchrun: exitcode " + std::to_string(code) + ")";
        } else {
            f.kind = FailureKind::Internal;
            f.message
                = "died of " + name + " " + std::to_string(sig) + " (torchrun: exitcode " + std::to_string(code) + ")";
        }
    } else {
        f.kind = FailureKind::Internal;
        f.facts["exit_code"] = code;
        f.message = "exited with code " + std::to_string(code) + " (torchrun summary)";
    }
    return f;
}

} // namespace

std::optional<std::int64_t> parseByteSize(std::string_view number, std::string_view unit)
{
    double value = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || ptr != number.data() + number.size() || !(value >= 0) || value > 1e18)
        return std::nullopt;
    double scale = 0;
    if (unit == "B" || unit == "bytes")
        scale = 1;
    else if (unit == "KiB")
        scale = 1024.0;
    else if (unit == "MiB")
        scale = 1024.0 * 1024;
    else if (unit == "GiB")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "TiB")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else
        return std::nullopt;
    const double bytes = value * scale;
    if (bytes > 9e18)
        return std::nullopt;
    return static_cast<std::int64_t>(std::llround(bytes));
}

std::optional<LogFinding> classifyLine(std::string_view line, int yearWhenMissing)
{
    const std::string text = detail::utf8Prefix(line, kMaxClassifiedLineLength);
    std::optional<LogFinding> f = outOfMemory(text);
    if (!f)
        f = watchdog(text);
    if (!f)
        f = launcherArguments(text);
    if (!f)
        f = lostConnectionOrKill(text);
    if (!f)
        f = communication(text);
    if (!f)
        f = crash(text);
    if (!f)
        return std::nullopt;
    if (f->rank == kNoRank)
        if (auto r = rankPrefix(text))
            f->rank = *r;
    f->time = parseLogTime(text, yearWhenMissing);
    return f;
}

std::vector<LogFinding> classifyLog(const std::vector<std::string>& lines, int yearWhenMissing)
{
    std::vector<LogFinding> out;
    bool inRootCauseSection = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (has(line, "Root Cause (first observed failure)"))
            inRootCauseSection = true;
        else if (has(line, "Failures:"))
            inRootCauseSection = false;
        if (isEntryHeader(line) && i + 1 < lines.size() && !fieldValue(lines[i + 1], "time").empty()) {
            // torchrun's ChildFailedError summary: "[0]:" followed by "time/host/rank/exitcode/..." fields.
            SummaryEntry e;
            e.firstLine = i + 1;
            e.torchrunRootCause = inRootCauseSection;
            std::size_t j = i + 1;
            for (; j < lines.size(); ++j) {
                const std::string_view l = lines[j];
                if (auto v = fieldValue(l, "time"); !v.empty())
                    e.time = v;
                else if (auto h = fieldValue(l, "host"); !h.empty())
                    e.host = h;
                else if (auto r = fieldValue(l, "rank"); !r.empty())
                    e.rank = r;
                else if (auto x = fieldValue(l, "exitcode"); !x.empty())
                    e.exitcode = x;
                else if (auto t = fieldValue(l, "traceback"); !t.empty())
                    e.traceback = t;
                else if (fieldValue(l, "error_file").empty())
                    break;
                e.lines.push_back(j + 1);
            }
            if (!e.exitcode.empty())
                out.push_back(fromSummaryEntry(e, yearWhenMissing));
            i = j - 1;
            continue;
        }
        if (auto f = classifyLine(line, yearWhenMissing)) {
            f->line = i + 1;
            out.push_back(std::move(*f));
        }
    }
    return out;
}

} // namespace shardwise::diagnose
