#include "shardwise/diagnose/run_folder.hpp"

#include "shardwise/diagnose/log_time.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

namespace shardwise::diagnose {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> readLines(const fs::path& file)
{
    std::error_code ec;
    if (!fs::exists(file, ec))
        throw DiagnoseInputError("cannot read " + file.string() + ": no such file");
    if (!fs::is_regular_file(file, ec))
        throw DiagnoseInputError("cannot read " + file.string() + ": not a regular file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw DiagnoseInputError("cannot read " + file.string() + ": " + std::strerror(errno));
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
    }
    if (in.bad())
        throw DiagnoseInputError("cannot read " + file.string() + ": read error");
    return lines;
}

std::optional<int> rankFromLogName(const std::string& name)
{
    if (!name.starts_with("rank") || !name.ends_with(".log") || name.size() <= 8)
        return std::nullopt;
    const std::string digits = name.substr(4, name.size() - 8);
    int rank = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || rank < 0)
        return std::nullopt;
    return rank;
}

struct Meta {
    std::map<std::string, double> offsets;
    struct Rank {
        std::string node;
        std::optional<int> exitCode, signal;
        bool lost = false;
        bool killedByLauncher = false;
        std::string lostReason;
        std::optional<double> lostTime;
    };
    std::map<int, Rank> ranks;
    std::map<std::string, std::string> logNodes;
};

void onlyKnownFields(const json& object, const std::string& where, std::initializer_list<std::string_view> known)
{
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            std::string list;
            for (auto k : known)
                list += (list.empty() ? "" : ", ") + std::string(k);
            throw DiagnoseInputError("meta.json: " + where + ": unknown field '" + key + "'; known: " + list);
        }
    }
}

const json* member(const json& object, const char* key, json::value_t type, const std::string& where,
                   const char* typeName)
{
    if (!object.contains(key))
        return nullptr;
    const json& v = object.at(key);
    const bool ok = type == json::value_t::number_integer
        ? v.is_number_integer()
        : (type == json::value_t::number_float ? v.is_number() : v.type() == type);
    if (!ok)
        throw DiagnoseInputError("meta.json: " + where + "." + key + " must be " + typeName + ", not " + v.dump());
    return &v;
}

Meta parseMeta(const fs::path& file)
{
    const auto lines = readLines(file);
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        throw DiagnoseInputError("meta.json: not valid JSON (" + file.string() + ")");
    if (!j.is_object())
        throw DiagnoseInputError("meta.json: the top level must be an object");
    onlyKnownFields(j, "top level", { "nodes", "ranks", "logs", "run" });
    Meta m;
    if (const json* nodes = member(j, "nodes", json::value_t::object, "top level", "an object")) {
        for (const auto& [name, node] : nodes->items()) {
            const std::string where = "nodes." + name;
            if (!node.is_object())
                throw DiagnoseInputError("meta.json: " + where + " must be an object");
            onlyKnownFields(node, where, { "clock_offset_s" });
            if (const json* off
                = member(node, "clock_offset_s", json::value_t::number_float, where, "a number (seconds)"))
                m.offsets[name] = off->get<double>();
        }
    }
    if (const json* ranks = member(j, "ranks", json::value_t::array, "top level", "an array")) {
        for (std::size_t i = 0; i < ranks->size(); ++i) {
            const json& r = (*ranks)[i];
            const std::string where = "ranks[" + std::to_string(i) + "]";
            if (!r.is_object())
                throw DiagnoseInputError("meta.json: " + where + " must be an object");
            onlyKnownFields(
                r, where,
                { "rank", "node", "exit_code", "signal", "lost", "lost_reason", "lost_time", "killed_by_launcher" });
            const json* rank = member(r, "rank", json::value_t::number_integer, where, "an integer");
            if (!rank || rank->get<long long>() < 0)
                throw DiagnoseInputError("meta.json: " + where + ": missing or negative 'rank'");
            Meta::Rank out;
            if (const json* v = member(r, "node", json::value_t::string, where, "a string"))
                out.node = v->get<std::string>();
            if (const json* v = member(r, "exit_code", json::value_t::number_integer, where, "an integer"))
                out.exitCode = v->get<int>();
            if (const json* v = member(r, "signal", json::value_t::number_integer, where, "an integer"))
                out.signal = v->get<int>();
            if (const json* v = member(r, "lost", json::value_t::boolean, where, "true or false"))
                out.lost = v->get<bool>();
            if (const json* v = member(r, "killed_by_launcher", json::value_t::boolean, where, "true or false"))
                out.killedByLauncher = v->get<bool>();
            if (const json* v = member(r, "lost_reason", json::value_t::string, where, "a string"))
                out.lostReason = v->get<std::string>();
            if (r.contains("lost_time")) {
                const json& t = r.at("lost_time");
                if (t.is_number()) {
                    out.lostTime = t.get<double>();
                } else if (t.is_string()) {
                    const auto parsed = parseLogTime(t.get<std::string>(), 1970);
                    if (!parsed)
                        throw DiagnoseInputError("meta.json: " + where + ".lost_time: not a time: " + t.dump()
                                                 + " (use ISO 8601, e.g. 2024-05-14T10:04:00Z, or unix seconds)");
                    out.lostTime = parsed->seconds;
                } else {
                    throw DiagnoseInputError("meta.json: " + where + ".lost_time must be a string or a number");
                }
            }
            m.ranks[rank->get<int>()] = out;
        }
    }
    if (const json* logs = member(j, "logs", json::value_t::object, "top level", "an object")) {
        for (const auto& [name, log] : logs->items()) {
            const std::string where = "logs." + name;
            if (!log.is_object())
                throw DiagnoseInputError("meta.json: " + where + " must be an object");
            onlyKnownFields(log, where, { "node" });
            if (const json* v = member(log, "node", json::value_t::string, where, "a string"))
                m.logNodes[name] = v->get<std::string>();
        }
    }
    return m;
}

std::vector<RankRecord> assemble(const std::vector<fs::path>& files)
{
    std::optional<Meta> meta;
    for (const auto& f : files)
        if (f.filename() == "meta.json")
            meta = parseMeta(f);

    std::map<int, RankRecord> ranks;
    std::vector<RankRecord> launchers;
    const auto rankRecord = [&](int rank) -> RankRecord& {
        RankRecord& r = ranks[rank];
        r.rank = rank;
        return r;
    };
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        if (name == "meta.json")
            continue;
        if (name.ends_with(".jsonl")) {
            const auto lines = readLines(f);
            for (std::size_t i = 0; i < lines.size(); ++i) {
                std::optional<protocol::Event> e;
                try {
                    e = protocol::tryParseEvent(lines[i]);
                } catch (const protocol::ProtocolError& err) {
                    throw DiagnoseInputError(name + ":" + std::to_string(i + 1) + ": " + err.what());
                }
                const std::string where = name + ":" + std::to_string(i + 1);
                if (!e) {
                    if (lines[i].find_first_not_of(" \t") == std::string::npos)
                        continue;
                    // Skipping it would let a file of anything read as a clean run.
                    const std::string excerpt = lines[i].size() > 80 ? lines[i].substr(0, 80) + "..." : lines[i];
                    throw DiagnoseInputError(where
                                             + ": not a runner event (an events file holds one JSON object "
                                               "with \"v\" and \"event\" per line): "
                                             + excerpt);
                }
                if (protocol::eventRank(*e) < 0)
                    throw DiagnoseInputError(where + ": rank " + std::to_string(protocol::eventRank(*e))
                                             + " is negative; a rank is 0 to world size - 1");
                RankRecord& r = rankRecord(protocol::eventRank(*e));
                r.eventsName = name;
                r.events.push_back(std::move(*e));
                r.eventLineNumbers.push_back(i + 1);
            }
        } else if (name.ends_with(".log")) {
            if (auto rank = rankFromLogName(name)) {
                RankRecord& r = rankRecord(*rank);
                r.logName = name;
                r.logLines = readLines(f);
            } else {
                RankRecord r;
                r.logName = name;
                r.logLines = readLines(f);
                launchers.push_back(std::move(r));
            }
        } else {
            throw DiagnoseInputError("cannot use " + f.string()
                                     + ": expected rank<N>.log, another *.log, *.jsonl events or meta.json");
        }
    }
    if (meta) {
        for (const auto& [rank, m] : meta->ranks) {
            RankRecord& r = rankRecord(rank);
            r.node = m.node;
            r.exitCode = m.exitCode;
            r.signal = m.signal;
            r.lost = m.lost;
            r.endedByLauncher = m.killedByLauncher;
            r.lostReason = m.lostReason;
            r.lostTime = m.lostTime;
        }
        for (auto& l : launchers)
            if (auto it = meta->logNodes.find(l.logName); it != meta->logNodes.end())
                l.node = it->second;
    }
    std::vector<RankRecord> out;
    for (auto& [rank, r] : ranks) {
        if (r.node.empty())
            for (const auto& e : r.events)
                if (const auto* s = std::get_if<protocol::StartEvent>(&e))
                    r.node = s->host;
        out.push_back(std::move(r));
    }
    for (auto& l : launchers)
        out.push_back(std::move(l));
    if (meta)
        for (auto& r : out)
            if (auto it = meta->offsets.find(r.node); it != meta->offsets.end())
                r.clockOffsetS = it->second;
    return out;
}

} // namespace

std::vector<RankRecord> loadRunFolder(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!fs::exists(dir, ec))
        throw DiagnoseInputError("no such directory: " + dir.string());
    if (!fs::is_directory(dir, ec))
        throw DiagnoseInputError("not a directory: " + dir.string());
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name == "meta.json" || name.ends_with(".log") || name.ends_with(".jsonl"))
            files.push_back(entry.path());
    }
    if (ec)
        throw DiagnoseInputError("cannot list " + dir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    if (std::none_of(files.begin(), files.end(), [](const fs::path& p) { return p.filename() != "meta.json"; }))
        throw DiagnoseInputError(dir.string() + " holds no rank<N>.log, *.log or *.jsonl files");
    return assemble(files);
}

std::vector<RankRecord> loadRunFiles(const std::vector<std::filesystem::path>& files)
{
    if (files.empty())
        throw DiagnoseInputError("no files given");
    std::set<std::string> seen;
    for (const auto& f : files)
        if (!seen.insert(f.filename().string()).second)
            throw DiagnoseInputError("two files named " + f.filename().string()
                                     + ": give one run's files (or its folder) at a time");
    return assemble(files);
}

} // namespace shardwise::diagnose
