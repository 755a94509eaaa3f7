// Which program runs a run: the config's backend decides, in one place (dispatch::runnerForBackend),
// for local and SSH launches alike. Unit cases for the choice and the runner's location, then real
// processes: a session started with the native runner's path and a torch config starts the harness
// beside it (stand-in scripts in a temporary bin folder, recorded into a real store file), and one
// end-to-end run of the real PyTorch harness, skipped only where python3 cannot import torch.
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/runs.hpp"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace shardwise;
using namespace shardwise::dispatch;

namespace {

std::string readFile(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeScript(const std::filesystem::path& path, const std::string& body)
{
    std::ofstream out(path);
    out << "#!/bin/sh\n" << body;
    out.close();
    ::chmod(path.c_str(), 0755);
}

// Restores an environment variable when the test leaves.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value)
        : m_name(name)
        , m_saved(qgetenv(name))
    {
        if (value)
            qputenv(name, value);
        else
            qunsetenv(name);
    }
    ~ScopedEnv()
    {
        if (m_saved.isNull())
            qunsetenv(m_name);
        else
            qputenv(m_name, m_saved);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    QByteArray m_saved;
};

// A stand-in for each program in one bin folder. The native one only says it ran and fails; the
// harness says how it was started and speaks the protocol: a start event naming the torch backend
// and its framework versions, then a summary, for the rank the environment names.
void installStandIns(const std::filesystem::path& bin)
{
    writeScript(bin / "shardwise-runner", "echo \"native $*\" >> \"$MARKER\"\nexit 7\n");
    writeScript(
        bin / "shardwise-torch-runner",
        "echo \"torch $RANK/$WORLD_SIZE $*\" >> \"$MARKER\"\n"
        "config=$(tr -d '\\n' < \"$2\")\n"
        "printf "
        "'{\"v\":1,\"event\":\"start\",\"rank\":%s,\"world\":%s,\"local_rank\":%s,\"host\":\"stand-in\",\"time\":1,"
        "\"config\":%s,\"versions\":{\"runner\":\"shardwise-torch "
        "0.0.1\",\"libtorch\":\"2.5.1\",\"cuda\":\"\",\"nccl\":\"\","
        "\"driver\":\"\",\"compiler\":\"\",\"backend\":\"torch\",\"python\":\"3.11.2\",\"torch\":\"2.5.1\","
        "\"transformers\":\"\",\"model_impl\":\"plain\"},\"launcher\":\"shardwise\",\"device_name\":\"cpu\"}\\n' "
        "\"$RANK\" \"$WORLD_SIZE\" \"$LOCAL_RANK\" \"$config\"\n"
        "printf "
        "'{\"v\":1,\"event\":\"summary\",\"rank\":%s,\"time\":2,\"world\":%s,\"warmup_steps\":1,\"timed_steps\":1,"
        "\"median_step_s\":0.5,\"tokens_per_s\":128,\"losses\":[5.5,5.4]}\\n' \"$RANK\" \"$WORLD_SIZE\"\n");
}

RunConfig tinyConfig(RunBackend backend, Strategy strategy, int world)
{
    RunConfig c;
    c.model = *PresetCatalog::builtin().findModel("tiny");
    c.strategy = strategy;
    c.backend = backend;
    c.worldSize = world;
    c.warmupSteps = 1;
    c.timedSteps = 2;
    c.training.seqLen = 32;
    return c;
}

// As the harness finds torch: python3 on the PATH, else /usr/bin/python3 (Debian's python3-torch).
bool pythonImportsTorch(QString* version)
{
    for (const QString& interpreter : { QStringLiteral("python3"), QStringLiteral("/usr/bin/python3") }) {
        QProcess python;
        python.start(interpreter, { QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)") });
        if (python.waitForFinished(120000) && python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0) {
            *version = QString::fromUtf8(python.readAllStandardOutput()).trimmed();
            return true;
        }
    }
    return false;
}

} // namespace

class TestRunBackend : public QObject {
    Q_OBJECT

private slots:
    void programIsNamedByTheBackend()
    {
        QCOMPARE(runnerProgram(RunBackend::Native), std::string_view("shardwise-runner"));
        QCOMPARE(runnerProgram(RunBackend::Torch), std::string_view("shardwise-torch-runner"));
    }

    void runnerForBackendPicksTheSibling_data()
    {
        QTest::addColumn<QString>("given");
        QTest::addColumn<bool>("torch");
        QTest::addColumn<QString>("expected");
        QTest::newRow("native runner, native run") << QStringLiteral("/opt/sw/bin/shardwise-runner") << false
                                                   << QStringLiteral("/opt/sw/bin/shardwise-runner");
        QTest::newRow("native runner, torch run") << QStringLiteral("/opt/sw/bin/shardwise-runner") << true
                                                  << QStringLiteral("/opt/sw/bin/shardwise-torch-runner");
        QTest::newRow("harness, torch run") << QStringLiteral("/opt/sw/bin/shardwise-torch-runner") << true
                                            << QStringLiteral("/opt/sw/bin/shardwise-torch-runner");
        QTest::newRow("harness, native run") << QStringLiteral("/opt/sw/bin/shardwise-torch-runner") << false
                                             << QStringLiteral("/opt/sw/bin/shardwise-runner");
        // A prepared node's runner: the harness sits in the same build folder.
        QTest::newRow("prepared node")
            << QStringLiteral("/home/ml/.cache/shardwise/runner/ab12/build/bin/shardwise-runner") << true
            << QStringLiteral("/home/ml/.cache/shardwise/runner/ab12/build/bin/shardwise-torch-runner");
        // Any other name is the caller's explicit program (a wrapper, a test double) and is kept.
        QTest::newRow("wrapper kept") << QStringLiteral("/usr/local/bin/my-runner-wrapper") << true
                                      << QStringLiteral("/usr/local/bin/my-runner-wrapper");
        QTest::newRow("bare name") << QStringLiteral("shardwise-runner") << true
                                   << QStringLiteral("shardwise-torch-runner");
    }
    void runnerForBackendPicksTheSibling()
    {
        QFETCH(QString, given);
        QFETCH(bool, torch);
        QFETCH(QString, expected);
        const auto chosen = runnerForBackend(torch ? RunBackend::Torch : RunBackend::Native, given.toStdString());
        QCOMPARE(QString::fromStdString(chosen.string()), expected);
    }

    void locatingTheHarnessHonoursTheEnvironment()
    {
        {
            ScopedEnv runner("SHARDWISE_RUNNER", "/opt/elsewhere/shardwise-runner");
            ScopedEnv harness("SHARDWISE_TORCH_RUNNER", nullptr);
            QCOMPARE(locateRunner(RunBackend::Torch).value(),
                     std::filesystem::path("/opt/elsewhere/shardwise-torch-runner"));
            QCOMPARE(locateRunner(RunBackend::Native).value(),
                     std::filesystem::path("/opt/elsewhere/shardwise-runner"));
        }
        {
            ScopedEnv runner("SHARDWISE_RUNNER", "/opt/elsewhere/shardwise-runner");
            ScopedEnv harness("SHARDWISE_TORCH_RUNNER", "/srv/harness/run.py");
            QCOMPARE(locateRunner(RunBackend::Torch).value(), std::filesystem::path("/srv/harness/run.py"));
            QCOMPARE(locateRunner(RunBackend::Native).value(),
                     std::filesystem::path("/opt/elsewhere/shardwise-runner"));
        }
    }

    // The session is handed the native runner's path, as every face does; the config's backend
    // decides what starts. Recorded into a real store file.
    void torchConfigStartsTheHarnessBesideTheRunner()
    {
        QTemporaryDir dir;
        const std::filesystem::path bin = dir.filePath(QStringLiteral("bin")).toStdString();
        std::filesystem::create_directories(bin);
        installStandIns(bin);
        const std::filesystem::path marker = dir.filePath(QStringLiteral("ran.txt")).toStdString();
        store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());

        LocalLaunch launch;
        launch.runner = bin / "shardwise-runner";
        launch.ranks = 2;
        launch.env["MARKER"] = marker.string();
        launch.timeout = std::chrono::seconds(60);
        session::SessionOptions options;
        options.db = &db;
        options.localRunRoot = dir.filePath(QStringLiteral("logs")).toStdString();
        const RunConfig config = tinyConfig(RunBackend::Torch, Strategy::Fsdp2Reshard, 2);
        const session::SessionResult result = session::runLocal(config, launch, options);

        const std::string ran = readFile(marker);
        QVERIFY2(ran.find("native") == std::string::npos, ran.c_str());
        QVERIFY2(ran.find("torch 0/2 --config ") != std::string::npos, ran.c_str());
        QVERIFY2(ran.find("torch 1/2 --config ") != std::string::npos, ran.c_str());
        QVERIFY2(result.outcome.ok(), result.outcome.reason.c_str());
        QCOMPARE(result.storedStatus, std::optional<store::RunStatus>(store::RunStatus::Completed));
        // The harness read the config the session wrote, backend included.
        const auto configFile = options.localRunRoot / ("run-" + std::to_string(*result.runId)) / "config.json";
        QCOMPARE(nlohmann::json::parse(readFile(configFile)).value("backend", std::string()), std::string("torch"));

        const auto detail = store::runDetail(db, *result.runId);
        QCOMPARE(detail->summary.backend, RunBackend::Torch);
        QCOMPARE(detail->versions.torch, std::string("2.5.1"));
        QCOMPARE(detail->versions.python, std::string("3.11.2"));
        QCOMPARE(detail->versions.modelImpl, std::string("plain"));
        QVERIFY(detail->versions.transformers.empty());
        QCOMPARE(*detail->summary.tokensPerS, 128.0);
    }

    // Rank 1 is killed (SIGKILL, no event); rank 0's collective then fails and reports a comm error,
    // the first error event of the run. The run's note and the result line name rank 1, as the
    // diagnosis does, not rank 0's symptom.
    void aKilledRankIsBlamedBeforeItsPeersCommError()
    {
        QTemporaryDir dir;
        const std::filesystem::path bin = dir.filePath(QStringLiteral("bin")).toStdString();
        std::filesystem::create_directories(bin);
        writeScript(bin / "shardwise-runner",
                    "if [ \"$RANK\" = 1 ]; then sleep 0.2; kill -9 $$; fi\n"
                    "sleep 1\n"
                    "printf '{\"v\":1,\"event\":\"error\",\"rank\":0,\"kind\":\"comm\",\"time\":%s,"
                    "\"message\":\"Connection closed by peer [127.0.0.1]:29500\"}\\n' \"$(date +%s.%N)\"\n"
                    "echo 'gloo: Connection closed by peer' >&2\n"
                    "exit 4\n");
        store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        LocalLaunch launch;
        launch.runner = bin / "shardwise-runner";
        launch.ranks = 2;
        launch.timeout = std::chrono::seconds(60);
        session::SessionOptions options;
        options.db = &db;
        options.localRunRoot = dir.filePath(QStringLiteral("logs")).toStdString();
        const session::SessionResult result
            = session::runLocal(tinyConfig(RunBackend::Native, Strategy::Zero3, 2), launch, options);
        QVERIFY(!result.outcome.ok());
        QVERIFY(result.diagnosis);
        QVERIFY2(result.outcome.reason.rfind("rank 1 failed first: ", 0) == 0, result.outcome.reason.c_str());
        QCOMPARE(store::findRun(db, *result.runId)->note, result.outcome.reason);
        const auto stored = store::diagnoses(db, *result.runId);
        QCOMPARE(stored.size(), std::size_t(1));
        QCOMPARE(stored.front().firstFailureRank, std::optional<int>(1));
    }

    void nativeConfigStartsTheNativeRunner()
    {
        QTemporaryDir dir;
        const std::filesystem::path bin = dir.filePath(QStringLiteral("bin")).toStdString();
        std::filesystem::create_directories(bin);
        installStandIns(bin);
        const std::filesystem::path marker = dir.filePath(QStringLiteral("ran.txt")).toStdString();
        store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        LocalLaunch launch;
        // Even handed the harness's path, a native config runs the native runner beside it.
        launch.runner = bin / "shardwise-torch-runner";
        launch.ranks = 1;
        launch.env["MARKER"] = marker.string();
        launch.timeout = std::chrono::seconds(60);
        session::SessionOptions options;
        options.db = &db;
        options.diagnoseFailures = false;
        const session::SessionResult result
            = session::runLocal(tinyConfig(RunBackend::Native, Strategy::Zero3, 1), launch, options);
        const std::string ran = readFile(marker);
        QVERIFY2(ran.rfind("native --config ", 0) == 0, ran.c_str());
        QVERIFY2(ran.find("torch") == std::string::npos, ran.c_str());
        QVERIFY(!result.outcome.ok());
        QCOMPARE(store::findRun(db, *result.runId)->backend, RunBackend::Native);
    }

    void missingHarnessFailsTheRunNamingIt()
    {
        QTemporaryDir dir;
        const std::filesystem::path bin = dir.filePath(QStringLiteral("bin")).toStdString();
        std::filesystem::create_directories(bin);
        writeScript(bin / "shardwise-runner", "exit 0\n");
        store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        LocalLaunch launch;
        launch.runner = bin / "shardwise-runner";
        session::SessionOptions options;
        options.db = &db;
        options.diagnoseFailures = false;
        const auto result = session::runLocal(tinyConfig(RunBackend::Torch, Strategy::Zero0, 1), launch, options);
        QCOMPARE(result.storedStatus, std::optional<store::RunStatus>(store::RunStatus::Failed));
        QVERIFY2(result.outcome.reason.find("shardwise-torch-runner") != std::string::npos,
                 result.outcome.reason.c_str());
        QCOMPARE(store::findRun(db, *result.runId)->backend, RunBackend::Torch);
    }

    // The real harness, as the build installs it beside the runner: two CPU ranks of DDP (zero0)
    // on the tiny model, recorded into a real store file with the framework it reported.
    void realHarnessRunsTwoRanksAndReportsItsFramework()
    {
        QString torchVersion;
        if (!pythonImportsTorch(&torchVersion))
            QSKIP("python3 cannot import torch here (Debian: python3-torch); the torch backend cannot run");
        const auto harness = locateRunner(RunBackend::Torch);
        QVERIFY2(harness && std::filesystem::exists(*harness),
                 "shardwise-torch-runner is not installed beside shardwise-runner in this build tree");
        QTemporaryDir dir;
        store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        LocalLaunch launch;
        launch.runner = *harness;
        launch.ranks = 2;
        launch.timeout = std::chrono::seconds(400);
        launch.env["GLOO_SOCKET_IFNAME"] = "lo";
        session::SessionOptions options;
        options.db = &db;
        options.localRunRoot = dir.filePath(QStringLiteral("logs")).toStdString();
        const session::SessionResult result
            = session::runLocal(tinyConfig(RunBackend::Torch, Strategy::Zero0, 2), launch, options);
        QVERIFY2(result.outcome.ok(),
                 (result.outcome.reason + "\n"
                  + (result.outcome.ranks.empty() ? std::string() : result.outcome.ranks[0].logTail))
                     .c_str());
        QCOMPARE(result.storedStatus, std::optional<store::RunStatus>(store::RunStatus::Completed));
        const auto detail = store::runDetail(db, *result.runId);
        QCOMPARE(detail->summary.backend, RunBackend::Torch);
        QCOMPARE(detail->versions.backend, std::string("torch"));
        QCOMPARE(QString::fromStdString(detail->versions.torch), torchVersion);
        QVERIFY(!detail->versions.python.empty());
        QVERIFY2(detail->versions.modelImpl == "transformers" || detail->versions.modelImpl == "plain",
                 detail->versions.modelImpl.c_str());
        QVERIFY(detail->summary.tokensPerS && *detail->summary.tokensPerS > 0);
        QCOMPARE(detail->rankSummaries.size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestRunBackend)
#include "test_run_backend.moc"
