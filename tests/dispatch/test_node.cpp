// Node discovery (parsing, and the real script over a real sshd) and node preparation: upload to a
// temporary name, SHA-256 check, rename, remote build, cache by source hash, progress, cancel.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/remote_bundle.hpp"
#include "shardwise/dispatch/runner_program.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace shardwise;
using namespace shardwise::dispatch;
using shardwise::testing::SshdFixture;

class TestNode : public QObject {
    Q_OBJECT

private:
    static std::filesystem::path tinyRunnerDir()
    {
        return std::filesystem::path(SHARDWISE_SOURCE_DIR) / "tests/dispatch/sshd/tiny_runner";
    }
    static std::string readText(const std::filesystem::path& p)
    {
        QFile file(QString::fromStdString(p.string()));
        return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
    }

private slots:
    void parsesGpuNodeFacts()
    {
        const std::string out
            = "hostname=gpu1\narch=x86_64\nos=Ubuntu 24.04 LTS\ncpu_cores=16\nram_kib=131072000\n"
              "gpu=0, NVIDIA H200, 143771, 580.159.04, 00000000:19:00.0\n"
              "gpu=1, NVIDIA H200, 143771, 580.159.04, 00000000:3B:00.0\ncuda_driver_api=13.0\n"
              "cuda_toolkit=13.0\nnccl=2.28.3\npython=Python 3.12.3\ntorch=2.11.0+cu130\ntorch_cuda=13.0\n"
              "torch_config_dir=/opt/torch/lib/python3.12/site-packages/torch/share/cmake/Torch\n"
              "cmake=4.4.0\ncmake_path=/opt/torch/.venv/bin/cmake\ncompiler=c++ (Ubuntu 13.3.0) "
              "13.3.0\ndiscovery=done\n";
        const NodeFacts f = parseNodeFacts(out);
        QCOMPARE(f.cpuCores, 16);
        QCOMPARE(f.ramBytes, std::int64_t(131072000) * 1024);
        QCOMPARE(f.gpus.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(f.gpus[1].name), QStringLiteral("NVIDIA H200"));
        QCOMPARE(f.gpus[1].memoryBytes, std::int64_t(143771) * 1024 * 1024);
        QCOMPARE(QString::fromStdString(f.gpus[1].pciBusId), QStringLiteral("00000000:3B:00.0"));
        QCOMPARE(QString::fromStdString(f.driver), QStringLiteral("580.159.04"));
        QCOMPARE(QString::fromStdString(f.nccl), QStringLiteral("2.28.3"));
        QCOMPARE(QString::fromStdString(f.torch), QStringLiteral("2.11.0+cu130"));
        QVERIFY(f.canBuildRunner());
    }

    void reportsWhatPreventsBuilding_data()
    {
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("problem");
        const QString base
            = QStringLiteral("cpu_cores=2\nram_kib=1000\ncmake=3.25\ncmake_path=/usr/bin/cmake\ncompiler=c++\n");
        QTest::newRow("no LibTorch") << base + QStringLiteral("discovery=done\n") << QStringLiteral("no LibTorch");
        QTest::newRow("cut short") << base + QStringLiteral("libtorch_config_dir=/x\n")
                                   << QStringLiteral("did not finish");
        QTest::newRow("GPU without NCCL")
            << base + QStringLiteral("libtorch_config_dir=/x\ngpu=0, NVIDIA L4, 23034, 550.1, 0:1\ndiscovery=done\n")
            << QStringLiteral("NCCL");
        QTest::newRow("bad nvidia-smi line")
            << base + QStringLiteral("libtorch_config_dir=/x\ngpu=garbage\ndiscovery=done\n")
            << QStringLiteral("cannot read nvidia-smi");
        QTest::newRow("bad core count") << QStringLiteral(
            "cpu_cores=many\nlibtorch_config_dir=/x\ncmake=3\ncompiler=c\ndiscovery=done\n")
                                        << QStringLiteral("cpu_cores");
    }
    void reportsWhatPreventsBuilding()
    {
        QFETCH(QString, output);
        QFETCH(QString, problem);
        const NodeFacts f = parseNodeFacts(output.toStdString());
        QVERIFY(!f.canBuildRunner());
        bool found = false;
        for (const auto& p : f.problems)
            found = found || QString::fromStdString(p).contains(problem);
        QVERIFY2(found, qPrintable(QString::fromStdString(describeNodeFacts(f))));
    }

    void cpuOnlyNodeWithDebianLibTorchCanBuild()
    {
        const NodeFacts f = parseNodeFacts(
            "cpu_cores=2\nram_kib=1000\nlibtorch_config_dir=/usr/lib/x86_64-linux-gnu/cmake/Torch\n"
            "libtorch_version=1.13.0\ncmake=3.25\ncmake_path=/usr/bin/cmake\ncompiler=c++\ndiscovery=done\n");
        QVERIFY(f.gpus.empty());
        QVERIFY(f.canBuildRunner());
        QCOMPARE(QString::fromStdString(f.torch), QStringLiteral("1.13.0"));
        QCOMPARE(QString::fromStdString(f.torchConfigDir), QStringLiteral("/usr/lib/x86_64-linux-gnu/cmake/Torch"));
    }

    // The torch backend's needs are read from the same script: python3, a python3 that imports
    // torch; Transformers is recorded when present and never a problem when absent.
    void torchBackendFactsSayWhatIsMissing_data()
    {
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("missing"); // empty: the torch backend can run
        QTest::addColumn<QString>("transformers");
        const QString base = QStringLiteral(
            "cpu_cores=2\nram_kib=1000\nlibtorch_config_dir=/x\ncmake=3.25\ncmake_path=/usr/bin/cmake\n"
            "compiler=c++\ndiscovery=done\n");
        QTest::newRow("no python3") << base << QStringLiteral("python3 is not installed") << QString();
        QTest::newRow("python3 without torch")
            << base + QStringLiteral("python=Python 3.11.2\n")
            << QStringLiteral("python3 cannot import torch (neither the python3 on the PATH nor /usr/bin/python3): "
                              "install PyTorch for Python 3.11.2")
            << QString();
        QTest::newRow("torch, no Transformers")
            << base
                + QStringLiteral(
                    "python=Python 3.11.2\npython_torch=2.5.1\npython_torch_interpreter=/usr/bin/python3\n")
            << QString() << QString();
        QTest::newRow("torch and Transformers") << base
                + QStringLiteral("python=Python 3.12.3\ntorch=2.11.0+cu130\npython_torch=2.11.0+cu130\n"
                                 "python_torch_interpreter=/opt/venv/bin/python3\ntransformers=4.57.1\n")
                                                << QString() << QStringLiteral("4.57.1");
    }
    void torchBackendFactsSayWhatIsMissing()
    {
        QFETCH(QString, output);
        QFETCH(QString, missing);
        QFETCH(QString, transformers);
        const NodeFacts f = parseNodeFacts(output.toStdString());
        QVERIFY(f.canBuildRunner()); // the native runner's needs are separate
        QCOMPARE(QString::fromStdString(f.transformers), transformers);
        const auto problems = f.torchBackendProblems();
        const QString report = QString::fromStdString(describeNodeFacts(f));
        if (missing.isEmpty()) {
            QVERIFY2(problems.empty(), qPrintable(report));
            QVERIFY2(report.contains(QStringLiteral("torch backend: ready")), qPrintable(report));
        } else {
            QCOMPARE(problems.size(), std::size_t(1));
            QVERIFY2(QString::fromStdString(problems.front()).contains(missing), problems.front().c_str());
            QVERIFY2(report.contains(QStringLiteral("missing for torch: ") + missing), qPrintable(report));
        }
    }

    // A LibTorch directory builds the runner but runs no Python: the torch backend still needs torch
    // importable from python3.
    void libTorchDirectoryIsNotATorchForPython()
    {
        const NodeFacts f = parseNodeFacts(
            "cpu_cores=2\nram_kib=1000\npython=Python 3.11.2\nlibtorch_config_dir=/opt/libtorch\n"
            "libtorch_version=2.5.1\ncmake=3.25\ncmake_path=/usr/bin/cmake\ncompiler=c++\ndiscovery=done\n");
        QCOMPARE(QString::fromStdString(f.torch), QStringLiteral("2.5.1"));
        QVERIFY(f.pythonTorch.empty());
        QCOMPARE(f.torchBackendProblems().size(), std::size_t(1));
    }

    // Running the harness from a checkout leaves bytecode caches; they must not change the bundle.
    void bundleLeavesPythonBytecodeOut()
    {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        std::filesystem::create_directories(root / "runner/torch/pkg/__pycache__");
        std::ofstream(root / "runner/torch/run.py") << "print('hi')\n";
        std::ofstream(root / "runner/torch/pkg/__init__.py") << "\n";
        const RemoteBundle clean = makeRemoteBundle(root, { "runner" });
        std::ofstream(root / "runner/torch/pkg/__pycache__/__init__.cpython-311.pyc") << "bytecode";
        std::ofstream(root / "runner/torch/stray.pyc") << "bytecode";
        const RemoteBundle afterRun = makeRemoteBundle(root, { "runner" });
        QCOMPARE(afterRun.sha256, clean.sha256);
        QCOMPARE(afterRun.files, (std::vector<std::string> { "runner/torch/pkg/__init__.py", "runner/torch/run.py" }));
    }

    void bundleIsDeterministicAndReadableByTar()
    {
        const RemoteBundle a = makeRunnerBundle(SHARDWISE_SOURCE_DIR);
        const RemoteBundle b = makeRunnerBundle(SHARDWISE_SOURCE_DIR);
        QCOMPARE(a.sha256, b.sha256);
        QVERIFY(a.tarball == b.tarball);
        QCOMPARE(a.tarball.size() % 512, std::size_t(0));
        QVERIFY(std::find(a.files.begin(), a.files.end(), "CMakeLists.txt") != a.files.end());
        QVERIFY(std::find(a.files.begin(), a.files.end(), "core/spec/src/json.cpp") != a.files.end());
        for (const auto& f : a.files)
            QVERIFY2(f.rfind("core/dispatch", 0) != 0 && f.rfind("app/gui", 0) != 0 && f.rfind("tests/", 0) != 0,
                     f.c_str());
        QTemporaryDir dir;
        QFile archive(dir.filePath(QStringLiteral("b.tar")));
        QVERIFY(archive.open(QIODevice::WriteOnly));
        archive.write(a.tarball.data(), static_cast<qint64>(a.tarball.size()));
        archive.close();
        QProcess tar;
        tar.start(QStringLiteral("tar"), { QStringLiteral("-tf"), archive.fileName() });
        QVERIFY(tar.waitForFinished(30000));
        QCOMPARE(tar.exitCode(), 0);
        const QStringList listed
            = QString::fromUtf8(tar.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(listed.size(), static_cast<qsizetype>(a.files.size()));
        QCOMPARE(listed.first(), QString::fromStdString(a.files.front()));
    }

    void discoveryOverSshFindsThisMachinesFacts()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        auto session = SshSession::open(sshd.endpoint(), sshd.keyCredentials(), sshd.options());
        const NodeFacts remote = discoverNode(*session);
        const NodeFacts local = discoverLocalNode();
        QVERIFY(remote.cpuCores > 0);
        QVERIFY(remote.ramBytes > 0);
        QCOMPARE(remote.cpuCores, local.cpuCores);
        QCOMPARE(remote.ramBytes, local.ramBytes);
        QCOMPARE(remote.gpus.size(), local.gpus.size());
        QCOMPARE(remote.hostname, local.hostname);
        QVERIFY(!describeNodeFacts(remote).empty());
    }

    void preparationUploadsVerifiesBuildsAndCaches()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        auto session = SshSession::open(sshd.endpoint(), sshd.keyCredentials(), sshd.options());
        if (!discoverNode(*session).canBuildRunner())
            QSKIP("this machine lacks cmake, a compiler or LibTorch, which node preparation checks for");
        const RemoteBundle tiny = makeRemoteBundle(tinyRunnerDir(), { "CMakeLists.txt", "main.cpp" });
        PreparationOptions options;
        options.remoteRoot = sshd.path(QStringLiteral("remote-cache")).toStdString();
        options.uploadChunk = 256; // several chunks, so upload progress moves
        options.jobs = 1;
        std::vector<PreparationProgress> progress;
        const PreparedRunner first
            = prepareNode(*session, tiny, options, [&](const PreparationProgress& p) { progress.push_back(p); });
        QVERIFY(!first.fromCache);
        QCOMPARE(first.sourceHash, tiny.sha256);
        QVERIFY2(QFile::exists(QString::fromStdString(first.runnerPath)), first.runnerPath.c_str());
        QVERIFY(QFile::exists(
            sshd.path(QStringLiteral("remote-cache/runner/%1.tar").arg(QString::fromStdString(tiny.sha256)))));
        QVERIFY(
            QDir(sshd.path(QStringLiteral("remote-cache/runner"))).entryList({ QStringLiteral("*.part-*") }).isEmpty());
        QVERIFY(progress.size() > 5);
        for (std::size_t i = 1; i < progress.size(); ++i)
            QVERIFY2(progress[i].fraction >= progress[i - 1].fraction, progress[i].message.c_str());
        QCOMPARE(progress.back().phase, PreparationPhase::Done);
        QCOMPARE(progress.back().fraction, 1.0);
        bool sawUpload = false, sawBuild = false;
        for (const auto& p : progress) {
            sawUpload = sawUpload || p.phase == PreparationPhase::Uploading;
            sawBuild = sawBuild || p.phase == PreparationPhase::Building;
        }
        QVERIFY(sawUpload && sawBuild);
        QProcess built;
        built.start(QString::fromStdString(first.runnerPath), {});
        QVERIFY(built.waitForFinished(10000));
        QCOMPARE(built.readAllStandardOutput(), QByteArray("tiny runner\n"));

        progress.clear();
        const PreparedRunner second
            = prepareNode(*session, tiny, options, [&](const PreparationProgress& p) { progress.push_back(p); });
        QVERIFY(second.fromCache);
        QCOMPARE(second.runnerPath, first.runnerPath);
        for (const auto& p : progress)
            QVERIFY(p.phase != PreparationPhase::Uploading && p.phase != PreparationPhase::Building);
    }

    // The harness ends up beside the runner (a target outside the runner's is built for it), and the
    // torch backend's check on the node names what is missing there.
    void preparationPutsTheHarnessBesideTheRunner()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        auto session = SshSession::open(sshd.endpoint(), sshd.keyCredentials(), sshd.options());
        const NodeFacts facts = discoverNode(*session);
        if (!facts.canBuildRunner())
            QSKIP("this machine lacks cmake, a compiler or LibTorch, which node preparation checks for");
        PreparationOptions options;
        options.remoteRoot = sshd.path(QStringLiteral("remote-cache")).toStdString();
        options.jobs = 1;

        // Sources without the harness: prepared, and the torch backend is said not to be there.
        const RemoteBundle tiny = makeRemoteBundle(tinyRunnerDir(), { "CMakeLists.txt", "main.cpp" });
        const PreparedRunner bare = prepareNode(*session, tiny, options);
        QVERIFY(bare.torchRunnerPath.empty());
        QVERIFY(!bare.torchBackendProblems.empty());
        QVERIFY2(bare.torchBackendProblems.back().find("shardwise-torch-runner") != std::string::npos,
                 bare.torchBackendProblems.back().c_str());

        // Sources whose harness is its own target, not built with the runner's.
        QTemporaryDir sources;
        const std::filesystem::path root = sources.path().toStdString();
        std::filesystem::copy_file(tinyRunnerDir() / "main.cpp", root / "main.cpp");
        std::ofstream(root / "CMakeLists.txt") << readText(tinyRunnerDir() / "CMakeLists.txt")
                                               << "add_custom_target(shardwise-torch-runner COMMAND ${CMAKE_COMMAND} "
                                                  "-E copy ${CMAKE_SOURCE_DIR}/harness.sh "
                                                  "${CMAKE_BINARY_DIR}/bin/shardwise-torch-runner)\n";
        std::ofstream(root / "harness.sh") << "#!/bin/sh\necho tiny harness\n";
        std::filesystem::permissions(root / "harness.sh", std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add);
        const RemoteBundle withHarness = makeRemoteBundle(root, { "CMakeLists.txt", "main.cpp", "harness.sh" });
        std::vector<PreparationProgress> progress;
        const PreparedRunner prepared
            = prepareNode(*session, withHarness, options, [&](const PreparationProgress& p) { progress.push_back(p); });
        const std::string expected = runnerForBackend(RunBackend::Torch, prepared.runnerPath).string();
        QCOMPARE(prepared.torchRunnerPath, expected);
        QProcess harness;
        harness.start(QString::fromStdString(prepared.torchRunnerPath), {});
        QVERIFY(harness.waitForFinished(10000));
        QCOMPARE(harness.readAllStandardOutput(), QByteArray("tiny harness\n"));
        // What the node lacks for torch is exactly what discovery says; the harness is not among it.
        QCOMPARE(prepared.torchBackendProblems, facts.torchBackendProblems());
        QVERIFY(progress.back().message.find("torch backend") != std::string::npos);
        QCOMPARE(checkTorchBackend(*session, prepared.torchRunnerPath), facts.torchBackendProblems());

        const auto missing
            = checkTorchBackend(*session, sshd.path(QStringLiteral("nowhere/shardwise-torch-runner")).toStdString());
        QVERIFY(!missing.empty());
        QVERIFY2(missing.front().find("nowhere/shardwise-torch-runner is not on the node") != std::string::npos,
                 missing.front().c_str());

        // A node that cannot run the torch backend is refused when asked to, naming what is missing.
        if (!facts.torchBackendProblems().empty()) {
            options.requireTorchBackend = true;
            try {
                prepareNode(*session, withHarness, options);
                QFAIL("preparation accepted a node without torch for python3");
            } catch (const NodePreparationError& e) {
                QCOMPARE(e.phase(), PreparationPhase::Checking);
                QVERIFY2(std::string(e.what()).find(facts.torchBackendProblems().front()) != std::string::npos,
                         e.what());
            }
        }
    }

    void preparationStopsWhenCancelled()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        auto session = SshSession::open(sshd.endpoint(), sshd.keyCredentials(), sshd.options());
        const RemoteBundle tiny = makeRemoteBundle(tinyRunnerDir(), { "CMakeLists.txt", "main.cpp" });
        PreparationOptions options;
        options.remoteRoot = sshd.path(QStringLiteral("remote-cache")).toStdString();
        options.uploadChunk = 64;
        std::atomic<bool> cancel { false };
        try {
            prepareNode(
                *session, tiny, options,
                [&](const PreparationProgress& p) {
                    if (p.phase == PreparationPhase::Uploading)
                        cancel = true;
                },
                &cancel);
            QFAIL("a cancelled preparation completed");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::Cancelled);
        }
        QVERIFY(!QFile::exists(
            sshd.path(QStringLiteral("remote-cache/runner/%1/BUILD_OK").arg(QString::fromStdString(tiny.sha256)))));
    }

    void nodesTestCommandRefusesUnknownHostThenAcceptsOnRequest()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString cli = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-cli");
        if (!QFileInfo::exists(cli))
            QSKIP("shardwise-cli is not built in this build tree");
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString appKnownHosts = sshd.path(QStringLiteral("cli_known_hosts"));
        const QStringList args { QStringLiteral("nodes"),
                                 QStringLiteral("test"),
                                 QStringLiteral("--host"),
                                 QStringLiteral("127.0.0.1"),
                                 QStringLiteral("--port"),
                                 QString::number(sshd.port()),
                                 QStringLiteral("--user"),
                                 QString::fromStdString(sshd.userName()),
                                 QStringLiteral("--key"),
                                 sshd.path(QStringLiteral("user_key")),
                                 QStringLiteral("--known-hosts"),
                                 appKnownHosts,
                                 QStringLiteral("--user-known-hosts"),
                                 sshd.path(QStringLiteral("user_known_hosts")) };
        QProcess refused;
        refused.start(cli, args);
        QVERIFY(refused.waitForFinished(120000));
        QCOMPARE(refused.exitCode(), 1);
        const QString why = QString::fromUtf8(refused.readAllStandardError());
        QVERIFY2(why.contains(sshd.hostKeyFingerprint()) && why.contains(QStringLiteral("unknown host")),
                 qPrintable(why));
        QVERIFY(!QFileInfo::exists(appKnownHosts));

        QProcess accepted;
        accepted.start(cli, args + QStringList { QStringLiteral("--accept-new-host-key") });
        QVERIFY(accepted.waitForFinished(120000));
        const QString facts = QString::fromUtf8(accepted.readAllStandardOutput());
        QVERIFY2(accepted.exitCode() == 0, qPrintable(facts + QString::fromUtf8(accepted.readAllStandardError())));
        QVERIFY2(facts.contains(sshd.hostKeyFingerprint()) && facts.contains(QStringLiteral("CPU cores:")),
                 qPrintable(facts));
        QVERIFY(QFileInfo::exists(appKnownHosts));
        // The framework facts the torch backend needs, said for the node whether present or not.
        for (const char* line : { "python:", "torch (py):", "Transformers:", "torch backend: " })
            QVERIFY2(facts.contains(QLatin1String(line)), line);

        // This machine, through the same script: the same facts without SSH.
        QProcess local;
        local.start(cli, { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--local") });
        QVERIFY(local.waitForFinished(120000));
        QCOMPARE(local.exitCode(), 0);
        const QString localFacts = QString::fromUtf8(local.readAllStandardOutput());
        QCOMPARE(localFacts, QString::fromStdString(describeNodeFacts(discoverLocalNode())));
        QVERIFY2(localFacts.contains(QStringLiteral("torch backend: ")), qPrintable(localFacts));

        QProcess usage;
        usage.start(cli,
                    { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--port"), QStringLiteral("x") });
        QVERIFY(usage.waitForFinished(10000));
        QCOMPARE(usage.exitCode(), 2);
        QVERIFY(QString::fromUtf8(usage.readAllStandardError()).contains(QStringLiteral("--port")));
    }
};

QTEST_GUILESS_MAIN(TestNode)
#include "test_node.moc"
