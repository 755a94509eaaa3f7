// Behaviour of core/diagnose on whole runs: the corpus under tests/data/diagnose (one folder per case,
// expected.json beside the logs), the cross-node ordering under clock skew, bad input that names the
// problem, the JSON the store keeps, and `shardwise-cli diagnose` as a real process.
#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/diagnose/run_folder.hpp"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace shardwise::diagnose;
using nlohmann::json;

namespace {

const QString kCorpus = QStringLiteral(SHARDWISE_TEST_DATA_DIR "/diagnose");

json readJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return json::parse(in);
}

QString str(const std::string& s)
{
    return QString::fromStdString(s);
}

RankRecord rank(int r, const std::string& node, std::vector<std::string> lines, std::optional<double> offset = {})
{
    RankRecord rec;
    rec.rank = r;
    rec.node = node;
    rec.logName = "rank" + std::to_string(r) + ".log";
    rec.logLines = std::move(lines);
    rec.clockOffsetS = offset;
    return rec;
}

std::string oomLine(const char* tried = "2.00 GiB")
{
    return std::string("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ") + tried
        + ". GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free.";
}

std::string watchdogLine(int r, const char* glogTime)
{
    return "[rank" + std::to_string(r) + "]:[E" + glogTime + " 4121 ProcessGroupNCCL.cpp:607] [Rank "
        + std::to_string(r)
        + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, "
          "NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.";
}

void writeFile(const QString& path, const std::string& text)
{
    std::ofstream out(path.toStdString());
    out << text;
}

} // namespace

class TestDiagnose : public QObject {
    Q_OBJECT

private slots:
    void corpusCaseMatchesExpectedVerdict_data()
    {
        QTest::addColumn<QString>("folder");
        const QStringList cases = QDir(kCorpus).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY2(cases.size() >= 9, "the diagnosis corpus is missing");
        for (const QString& c : cases)
            QTest::newRow(qPrintable(c)) << kCorpus + QLatin1Char('/') + c;
    }

    void corpusCaseMatchesExpectedVerdict()
    {
        QFETCH(QString, folder);
        const json expected = readJson(folder + QStringLiteral("/expected.json"));
        const Diagnosis d = diagnose(loadRunFolder(folder.toStdString()));
        const json got = toJson(d);
        const QString dump = str(got.dump(2));

        QCOMPARE(str(got["verdict"].get<std::string>()), str(expected["verdict"].get<std::string>()));
        QVERIFY2(!d.explanation.empty(), "every verdict is explained");
        if (expected.contains("ordering_certain"))
            QCOMPARE(d.orderingCertain, expected["ordering_certain"].get<bool>());
        if (expected.contains("failure_count"))
            QCOMPARE(d.failures.size(), expected["failure_count"].get<std::size_t>());
        if (expected.contains("root_cause") && expected["root_cause"].is_null())
            QVERIFY2(!d.rootCause.has_value(), qPrintable(dump));
        if (expected.contains("root_cause") && expected["root_cause"].is_object()) {
            QVERIFY2(d.rootCause.has_value(), qPrintable(dump));
            const json& want = expected["root_cause"];
            const json root = got["failures"][*d.rootCause];
            QVERIFY(root["root_cause"].get<bool>());
            QVERIFY(!root["symptom"].get<bool>());
            QCOMPARE(str(root["kind"].get<std::string>()), str(want["kind"].get<std::string>()));
            QCOMPARE(str(root["rank"].dump()), str(want["rank"].dump()));
            QCOMPARE(str(root["node"].get<std::string>()), str(want["node"].get<std::string>()));
            if (want.contains("logged_time"))
                QCOMPARE(str(root["logged_time"].get<std::string>()), str(want["logged_time"].get<std::string>()));
            if (want.contains("time_source"))
                QCOMPARE(str(root["time_source"].get<std::string>()), str(want["time_source"].get<std::string>()));
            if (want.contains("message_contains"))
                QVERIFY2(root["message"].get<std::string>().find(want["message_contains"].get<std::string>())
                             != std::string::npos,
                         qPrintable(dump));
            if (want.contains("last_line_contains")) {
                QVERIFY2(root.contains("last_lines"), qPrintable(dump));
                QVERIFY(root["last_lines"].back()["text"].get<std::string>().find(
                            want["last_line_contains"].get<std::string>())
                        != std::string::npos);
            }
            const json facts = want.value("facts", json::object());
            for (auto it = facts.begin(); it != facts.end(); ++it) {
                QVERIFY2(root["facts"].contains(it.key()),
                         qPrintable(QStringLiteral("fact ") + str(it.key()) + QStringLiteral(" missing: ") + dump));
                QCOMPARE(str(root["facts"][it.key()].dump()), str(it.value().dump()));
            }
            QVERIFY2(!root["evidence"].empty(), "the root cause shows its evidence");
        }
        const json wantSymptoms = expected.value("symptoms", json::array());
        for (const auto& s : wantSymptoms) {
            const bool found = std::any_of(got["failures"].begin(), got["failures"].end(), [&](const json& f) {
                return f["kind"] == s["kind"] && f["rank"] == s["rank"] && f["symptom"].get<bool>();
            });
            QVERIFY2(found,
                     qPrintable(QStringLiteral("symptom ") + str(s.dump()) + QStringLiteral(" not found: ") + dump));
        }
        if (expected.contains("failures_in_order")) {
            std::vector<std::size_t> positions;
            for (const auto& want : expected["failures_in_order"]) {
                const auto it = std::find_if(got["failures"].begin(), got["failures"].end(), [&](const json& f) {
                    return f["kind"] == want["kind"] && f["rank"] == want["rank"];
                });
                QVERIFY2(it != got["failures"].end(), qPrintable(str(want.dump())));
                positions.push_back(static_cast<std::size_t>(it - got["failures"].begin()));
            }
            QVERIFY2(std::is_sorted(positions.begin(), positions.end()), qPrintable(dump));
        }
        std::vector<std::string> actionKinds;
        for (const auto& a : got["actions"])
            actionKinds.push_back(a["kind"].get<std::string>());
        std::size_t lastPosition = 0;
        const json wantActions = expected.value("actions", json::array());
        for (const auto& want : wantActions) {
            const auto it = std::find(actionKinds.begin(), actionKinds.end(), want.get<std::string>());
            QVERIFY2(it != actionKinds.end(),
                     qPrintable(QStringLiteral("action ") + str(want.dump()) + QStringLiteral(" missing: ") + dump));
            const auto pos = static_cast<std::size_t>(it - actionKinds.begin());
            QVERIFY2(pos >= lastPosition, "actions come in the expected order");
            lastPosition = pos;
        }
        const json absentActions = expected.value("absent_actions", json::array());
        for (const auto& absent : absentActions)
            QVERIFY2(std::find(actionKinds.begin(), actionKinds.end(), absent.get<std::string>()) == actionKinds.end(),
                     qPrintable(dump));
        const auto actionOf = [&](const std::string& kind) -> json {
            for (const auto& a : got["actions"])
                if (a["kind"] == kind)
                    return a;
            return json::object();
        };
        const json wantStrategies = expected.value("action_strategies", json::object());
        for (auto it = wantStrategies.begin(); it != wantStrategies.end(); ++it)
            QCOMPARE(str(actionOf(it.key()).value("strategy", std::string())), str(it.value().get<std::string>()));
        const json wantNodes = expected.value("action_nodes", json::object());
        for (auto it = wantNodes.begin(); it != wantNodes.end(); ++it)
            QCOMPARE(str(actionOf(it.key()).value("node", std::string())), str(it.value().get<std::string>()));
        const json wantRanks = expected.value("action_ranks", json::object());
        for (auto it = wantRanks.begin(); it != wantRanks.end(); ++it)
            QCOMPARE(str(actionOf(it.key()).value("ranks", json::array()).dump()), str(it.value().dump()));
        const json wantTexts = expected.value("action_text_contains", json::object());
        for (auto it = wantTexts.begin(); it != wantTexts.end(); ++it)
            for (const auto& t : it.value())
                QVERIFY2(actionOf(it.key()).value("text", std::string()).find(t.get<std::string>())
                             != std::string::npos,
                         qPrintable(str(t.get<std::string>()) + QStringLiteral(" not in: ")
                                    + str(actionOf(it.key()).dump())));
        const json wantExplanation = expected.value("explanation_contains", json::array());
        for (const auto& t : wantExplanation)
            QVERIFY2(d.explanation.find(t.get<std::string>()) != std::string::npos,
                     qPrintable(str(t.get<std::string>()) + QStringLiteral(" not in: ") + str(d.explanation)));
    }

    void measuredOffsetsOrderFailuresAcrossNodes()
    {
        // node-a runs 420 s ahead: its OOM logged at 10:05:30 happened at 09:58:30.
        std::vector<RankRecord> records {
            rank(0, "node-a", { "2024-05-14 10:05:30,000 - INFO - step 9", oomLine() }, 420.0),
            rank(1, "node-b", { "2024-05-14 09:58:34,000 - INFO - step 9", oomLine() }, 0.0),
        };
        Diagnosis d = diagnose(records);
        QVERIFY(d.rootCause.has_value());
        QCOMPARE(d.failures[*d.rootCause].rank, 0);
        QVERIFY(d.orderingCertain);

        // Without the offsets the same two failures are within the unknown skew window: the earlier-
        // looking one is named, and the ordering is flagged as uncertain.
        records[0].clockOffsetS.reset();
        records[1].clockOffsetS.reset();
        d = diagnose(records);
        QCOMPARE(d.failures[*d.rootCause].rank, 1);
        QVERIFY(!d.orderingCertain);
    }

    void symptomWithinSkewWindowIsNeverRootCause()
    {
        // The watchdog is logged two minutes before the OOM that caused it (unmeasured skew).
        const std::vector<RankRecord> records {
            rank(0, "node-a", { watchdogLine(0, "514 10:12:05.000000") }),
            rank(1, "node-b", { "2024-05-14 10:14:00,000 - INFO - step 62", oomLine() }),
        };
        const Diagnosis d = diagnose(records);
        QCOMPARE(d.verdict, Verdict::RootCause);
        QCOMPARE(d.failures[*d.rootCause].kind, FailureKind::OutOfMemory);
        QCOMPARE(d.failures.front().kind, FailureKind::WatchdogTimeout); // ordered by time, it still comes first
        QVERIFY(d.failures.front().isSymptom);
        QVERIFY(!d.failures.front().isRootCause);
    }

    void symptomBeyondSkewWindowLeavesNoRootCause()
    {
        // Offsets are measured, so a watchdog 30 minutes before the OOM cannot have been caused by it.
        const std::vector<RankRecord> records {
            rank(0, "node-a", { watchdogLine(0, "514 09:44:00.000000") }, 0.0),
            rank(1, "node-b", { "2024-05-14 10:14:00,000 - INFO - step 62", oomLine() }, 0.0),
        };
        const Diagnosis d = diagnose(records);
        QCOMPARE(d.verdict, Verdict::SymptomsOnly);
        QVERIFY(!d.rootCause.has_value());
        QVERIFY(!d.notes.empty());
    }

    void skewWindowOptionWidensWhatCountsAsCaused()
    {
        const std::vector<RankRecord> records {
            rank(0, "node-a", { watchdogLine(0, "514 09:44:00.000000") }),
            rank(1, "node-b", { "2024-05-14 10:14:00,000 - INFO - step 62", oomLine() }),
        };
        DiagnoseOptions narrow;
        narrow.unknownSkewS = 60;
        QCOMPARE(diagnose(records, narrow).verdict, Verdict::SymptomsOnly);
        DiagnoseOptions wide;
        wide.unknownSkewS = 3600;
        QCOMPARE(diagnose(records, wide).verdict, Verdict::RootCause);
    }

    void independentFailureBeatsCommunicationErrorWithinUncertainty()
    {
        const std::vector<RankRecord> records {
            rank(0, "node-a",
                 { "2024-05-14 10:00:01,000 - ERROR - x",
                   "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled system "
                   "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1" }),
            rank(1, "node-b", { "2024-05-14 10:00:03,000 - INFO - x", oomLine() }),
        };
        const Diagnosis d = diagnose(records);
        QCOMPARE(d.failures[*d.rootCause].kind, FailureKind::OutOfMemory);
        QVERIFY(!d.orderingCertain);
    }

    void exitCodeWithoutLogEvidenceIsReported()
    {
        RankRecord r = rank(0, "node-a", { "2024-05-14 10:00:01,000 - INFO - loading shard 3" });
        r.exitCode = 3;
        const Diagnosis d = diagnose({ r });
        QCOMPARE(d.verdict, Verdict::RootCause);
        QCOMPARE(d.failures[*d.rootCause].kind, FailureKind::Internal);
        QCOMPARE(d.failures[*d.rootCause].lastLines.size(), std::size_t(1));
    }

    void missingDirectoryIsNamed()
    {
        try {
            loadRunFolder("/nonexistent/run-17");
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(std::string(e.what()).find("no such directory: /nonexistent/run-17") != std::string::npos,
                     e.what());
        }
    }

    void unreadableFileIsNamed()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("rank1.log"))); // a directory where a log should be
        writeFile(dir.filePath(QStringLiteral("rank0.log")), "ok\n");
        try {
            loadRunFolder(dir.path().toStdString());
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(std::string(e.what()).find("rank1.log: not a regular file") != std::string::npos, e.what());
        }
        try {
            loadRunFiles({ dir.filePath(QStringLiteral("rank7.log")).toStdString() });
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(std::string(e.what()).find("rank7.log: no such file") != std::string::npos, e.what());
        }
    }

    void emptyFolderIsNamed()
    {
        QTemporaryDir dir;
        try {
            loadRunFolder(dir.path().toStdString());
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(std::string(e.what()).find("holds no rank<N>.log") != std::string::npos, e.what());
        }
    }

    void malformedMetaJsonIsNamed_data()
    {
        QTest::addColumn<QString>("meta");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << QStringLiteral("{\"ranks\": [") << QStringLiteral("meta.json: not valid JSON");
        QTest::newRow("not an object") << QStringLiteral("[1, 2]")
                                       << QStringLiteral("meta.json: the top level must be an object");
        QTest::newRow("ranks not an array")
            << QStringLiteral("{\"ranks\": {}}") << QStringLiteral("top level.ranks must be an array");
        QTest::newRow("exit code as text")
            << QStringLiteral("{\"ranks\": [{\"rank\": 0}, {\"rank\": 1, \"exit_code\": \"137\"}]}")
            << QStringLiteral("ranks[1].exit_code must be an integer");
        QTest::newRow("rank missing") << QStringLiteral("{\"ranks\": [{\"node\": \"a\"}]}")
                                      << QStringLiteral("ranks[0]: missing or negative 'rank'");
        QTest::newRow("misspelt field") << QStringLiteral("{\"ranks\": [{\"rank\": 0, \"exitcode\": 1}]}")
                                        << QStringLiteral("ranks[0]: unknown field 'exitcode'");
        QTest::newRow("offset as text") << QStringLiteral("{\"nodes\": {\"node-a\": {\"clock_offset_s\": \"7m\"}}}")
                                        << QStringLiteral("nodes.node-a.clock_offset_s must be a number");
        QTest::newRow("lost time not a time")
            << QStringLiteral("{\"ranks\": [{\"rank\": 0, \"lost\": true, \"lost_time\": \"yesterday\"}]}")
            << QStringLiteral("ranks[0].lost_time: not a time");
    }

    void malformedMetaJsonIsNamed()
    {
        QFETCH(QString, meta);
        QFETCH(QString, message);
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("rank0.log")), "ok\n");
        writeFile(dir.filePath(QStringLiteral("meta.json")), meta.toStdString());
        try {
            loadRunFolder(dir.path().toStdString());
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }

    void malformedEventLineIsNamedWithItsLine()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("events.jsonl")),
                  "\n{\"v\":1,\"event\":\"error\",\"rank\":0,\"kind\":\"meltdown\"}\n");
        try {
            loadRunFolder(dir.path().toStdString());
            QFAIL("no error");
        } catch (const DiagnoseInputError& e) {
            QVERIFY2(std::string(e.what()).find("events.jsonl:2: event 'error': unknown kind 'meltdown'")
                         != std::string::npos,
                     e.what());
        }
    }

    // Through the real CLI: input that is not a run's events is exit 2 naming file:line, never a
    // "clean" verdict; a window that is not a finite number is refused by name.
    void cliRefusesWhatIsNotARunsEvents_data()
    {
        QTest::addColumn<QString>("events");
        QTest::addColumn<QStringList>("extraArgs");
        QTest::addColumn<QString>("expected");
        const QString start
            = QStringLiteral(R"({"v":1,"event":"log","rank":%1,"level":"info","message":"hi","time":1715680801.0})");
        QTest::newRow("text line") << (start.arg(0) + QStringLiteral("\nhello world\n")) << QStringList {}
                                   << QStringLiteral("events.jsonl:2: not a runner event");
        QTest::newRow("object without event") << QStringLiteral("{\"rank\":0}\n") << QStringList {}
                                              << QStringLiteral("events.jsonl:1: not a runner event");
        QTest::newRow("negative rank") << (QStringLiteral("\n") + start.arg(-3)) << QStringList {}
                                       << QStringLiteral("events.jsonl:2: rank -3 is negative");
        QTest::newRow("nan window") << start.arg(0)
                                    << QStringList { QStringLiteral("--skew-window"), QStringLiteral("nan") }
                                    << QStringLiteral(
                                           "--skew-window must be a finite number of seconds >= 0, not 'nan'");
        QTest::newRow("infinite window") << start.arg(0)
                                         << QStringList { QStringLiteral("--skew-window"), QStringLiteral("inf") }
                                         << QStringLiteral("--skew-window must be a finite number");
    }
    void cliRefusesWhatIsNotARunsEvents()
    {
        QFETCH(QString, events);
        QFETCH(QStringList, extraArgs);
        QFETCH(QString, expected);
        const QString cli = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-cli");
        if (!QFileInfo::exists(cli))
            QSKIP("shardwise-cli is not built in this tree");
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("events.jsonl")), events.toStdString());
        writeFile(dir.filePath(QStringLiteral("rank0.log")), "step 1\n");
        QProcess p;
        p.start(cli, QStringList { QStringLiteral("diagnose"), dir.path() } + extraArgs);
        QVERIFY(p.waitForFinished(30000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(!out.contains(QStringLiteral("clean")), qPrintable(out));
    }

    void diagnosisJsonKeepsVerdictFailuresAndActions()
    {
        const Diagnosis d
            = diagnose(loadRunFolder((kCorpus + QStringLiteral("/oom_fragmentation_single_rank")).toStdString()));
        const json j = toJson(d);
        QCOMPARE(str(j["verdict"].get<std::string>()), QStringLiteral("root_cause"));
        QCOMPARE(j["root_cause"].get<std::size_t>(), *d.rootCause);
        QCOMPARE(j["failures"].size(), d.failures.size());
        QCOMPARE(j["actions"].size(), d.actions.size());
        const json& root = j["failures"][*d.rootCause];
        QVERIFY(root["evidence"][0]["line"].get<std::size_t>() > 0);
        QVERIFY(root["evidence"][0]["text"].get<std::string>().find("CUDA out of memory") != std::string::npos);
        QCOMPARE(str(j["actions"][0]["text"].get<std::string>()).contains(QStringLiteral("expandable_segments:True")),
                 true);
    }

    void cliPrintsVerdictTableAndJson()
    {
        const QString cli = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-cli");
        if (!QFileInfo::exists(cli))
            QSKIP("shardwise-cli is not built in this tree");
        const QString folder = kCorpus + QStringLiteral("/oom_rank3_then_watchdog_4_ranks_2_nodes");
        QProcess p;
        p.start(cli, { QStringLiteral("diagnose"), folder });
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString table = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(table.contains(QStringLiteral("verdict: root_cause")), qPrintable(table));
        QVERIFY2(table.contains(QStringLiteral("ROOT CAUSE  oom  rank 3  node node-b")), qPrintable(table));

        p.start(cli,
                { QStringLiteral("diagnose"), folder + QStringLiteral("/rank0.log"),
                  folder + QStringLiteral("/rank3.log"), QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const json j = json::parse(p.readAllStandardOutput().toStdString());
        QCOMPARE(str(j["failures"][j["root_cause"].get<std::size_t>()]["kind"].get<std::string>()),
                 QStringLiteral("oom"));

        p.start(cli, { QStringLiteral("diagnose"), QStringLiteral("/nonexistent/run-17") });
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("/nonexistent/run-17")));
    }
};

QTEST_GUILESS_MAIN(TestDiagnose)
#include "test_diagnose.moc"
