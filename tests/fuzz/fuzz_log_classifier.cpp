// libFuzzer target: arbitrary bytes as two ranks' logs through the classifiers and the first-failure
// finder. Whatever the bytes, the diagnosis must be internally consistent and serialisable as JSON.
#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/diagnose/log_classifier.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "diagnosis invariant broken: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace shardwise::diagnose;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<RankRecord> records(2);
    for (int r = 0; r < 2; ++r) {
        records[r].rank = r;
        records[r].node = r == 0 ? "node-a" : "node-b";
        records[r].logName = "rank" + std::to_string(r) + ".log";
    }
    // Lines alternate between the two ranks so cross-rank ordering is exercised.
    std::size_t start = 0;
    int lineNo = 0;
    while (start <= input.size()) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        records[lineNo++ % 2].logLines.emplace_back(input.substr(start, end - start));
        start = end + 1;
    }
    records[1].clockOffsetS = size % 3 == 0 ? std::optional<double>(17.0) : std::nullopt;
    records[0].exitCode = size % 5 == 0 ? 137 : 1;

    for (const auto& r : records)
        for (const auto& f : classifyLog(r.logLines))
            check(f.line >= 1 && f.line <= r.logLines.size(), "finding line inside the log");

    const Diagnosis d = diagnose(records);
    check(d.rootCause.has_value() == (d.verdict == Verdict::RootCause), "root cause iff verdict root_cause");
    std::size_t marked = 0;
    for (std::size_t i = 0; i < d.failures.size(); ++i) {
        const Failure& f = d.failures[i];
        marked += f.isRootCause ? 1 : 0;
        check(!f.isRootCause || d.rootCause == i, "the marked failure is the named one");
        check(!(f.isRootCause && f.isSymptom), "a symptom is never the root cause");
        for (const auto& e : f.evidence) {
            const RankRecord* source = nullptr;
            for (const auto& r : records)
                if (r.logName == e.source)
                    source = &r;
            check(!source || e.line <= source->logLines.size(), "evidence line inside its log");
        }
    }
    check(marked == (d.rootCause ? 1u : 0u), "exactly one root cause when named");
    check(d.verdict == Verdict::Clean || !d.explanation.empty(), "failures are explained");
    // Strict dump: throws on invalid UTF-8, which diagnose() must have replaced.
    (void)toJson(d).dump();
    return 0;
}
