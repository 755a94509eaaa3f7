// The Debian package as a user gets it: desktop file and AppStream metainfo pass their validators,
// the icon renderings have their sizes, cpack builds the .deb from this build, and the .deb unpacked
// with dpkg -x into a scratch root runs `shardwise-cli plan` on the presets it installed. Its Depends
// must name a Debian package for every library the binaries load, and its runner sources must be
// the very bytes node preparation uploads.

#include "shardwise/dispatch/remote_bundle.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTest>

namespace {

struct ProcessResult {
    bool finished = false;
    int exitCode = -1;
    QString out;
    QString err;
    QString describe(const QString& what) const
    {
        return what + (finished ? QStringLiteral(" exited %1").arg(exitCode) : QStringLiteral(" did not finish")) + QStringLiteral("\nstdout:\n")
            + out.right(4000) + QStringLiteral("\nstderr:\n") + err.right(4000);
    }
    bool ok() const { return finished && exitCode == 0; }
};

ProcessResult runProcess(const QString& program, const QStringList& arguments, int timeoutMs = 120'000,
                         const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(program, arguments);
    ProcessResult r;
    r.finished = p.waitForStarted(10'000) && p.waitForFinished(timeoutMs) && p.exitStatus() == QProcess::NormalExit;
    if (p.state() != QProcess::NotRunning) {
        p.kill();
        p.waitForFinished(5'000);
    }
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    if (r.err.isEmpty() && !r.finished)
        r.err = p.errorString();
    return r;
}

// The environment an installed binary sees on a user's machine: no pointer into this source tree.
QProcessEnvironment userEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("SHARDWISE_PRESETS"));
    env.remove(QStringLiteral("SHARDWISE_DB"));
    return env;
}

// "a (>= 1), b | c, d" -> {a, b, c, d}
QSet<QString> packageNames(const QString& relationField)
{
    QSet<QString> names;
    for (const QString& relation : relationField.split(QRegularExpression(QStringLiteral("[,|]")), Qt::SkipEmptyParts)) {
        const QString name = relation.trimmed().section(QLatin1Char(' '), 0, 0).section(QLatin1Char(':'), 0, 0);
        if (!name.isEmpty())
            names.insert(name);
    }
    return names;
}

// PNG: 8-byte signature, then the IHDR chunk whose data starts with big-endian width and height.
QSize pngSize(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray head = f.read(24);
    if (head.size() < 24 || !head.startsWith("\x89PNG\r\n\x1a\n") || head.mid(12, 4) != "IHDR")
        return {};
    const auto be32 = [&](int at) {
        return (static_cast<quint32>(static_cast<quint8>(head[at])) << 24) | (static_cast<quint32>(static_cast<quint8>(head[at + 1])) << 16)
            | (static_cast<quint32>(static_cast<quint8>(head[at + 2])) << 8) | static_cast<quint32>(static_cast<quint8>(head[at + 3]));
    };
    return QSize(static_cast<int>(be32(16)), static_cast<int>(be32(20)));
}

const QStringList kIconSizes{QStringLiteral("16"), QStringLiteral("32"), QStringLiteral("48"),
                             QStringLiteral("64"), QStringLiteral("128"), QStringLiteral("256")};

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT

private:
    const QString m_source = QStringLiteral(SHARDWISE_SOURCE_DIR);
    const QString m_scratch = QStringLiteral(SHARDWISE_BINARY_DIR "/tests/packaging-scratch");
    QString m_deb;  // the built .deb, once packageBuilt() succeeded
    QString m_root; // its dpkg -x scratch root
    QString m_packageError;
    bool m_packageTried = false;

    QString inRoot(const QString& relative) const { return m_root + QLatin1Char('/') + relative; }

    // cpack over this build, then dpkg -x; once for all package tests, each of which fails with the
    // reason when it could not be built.
    bool packageBuilt()
    {
        if (m_packageTried)
            return m_packageError.isEmpty();
        m_packageTried = true;
        QDir(m_scratch).removeRecursively();
        const QString debDir = m_scratch + QStringLiteral("/deb");
        m_root = m_scratch + QStringLiteral("/root");
        QDir().mkpath(debDir);
        QDir().mkpath(m_root);
        const ProcessResult cpack = runProcess(QStringLiteral(SHARDWISE_CPACK), {QStringLiteral("--config"), QStringLiteral(SHARDWISE_CPACK_CONFIG),
                                                                              QStringLiteral("-B"), debDir},
                                               300'000);
        if (!cpack.ok()) {
            m_packageError = cpack.describe(QStringLiteral("cpack"));
            return false;
        }
        const QStringList debs = QDir(debDir).entryList({QStringLiteral("shardwise_*.deb")}, QDir::Files);
        if (debs.size() != 1) {
            m_packageError = QStringLiteral("expected one shardwise_*.deb in %1, found: %2").arg(debDir, debs.join(QStringLiteral(", ")));
            return false;
        }
        m_deb = debDir + QLatin1Char('/') + debs.first();
        const ProcessResult extract = runProcess(QStringLiteral("dpkg"), {QStringLiteral("-x"), m_deb, m_root});
        if (!extract.ok()) {
            m_packageError = extract.describe(QStringLiteral("dpkg -x"));
            return false;
        }
        return true;
    }

    QString controlField(const QString& field)
    {
        const ProcessResult r = runProcess(QStringLiteral("dpkg-deb"), {QStringLiteral("-f"), m_deb, field});
        return r.ok() ? r.out.trimmed() : QString();
    }

    QStringList installedBinaries() const
    {
        QStringList binaries{QStringLiteral("usr/bin/shardwise-cli")};
#ifdef SHARDWISE_PACKAGE_HAS_APP
        binaries << QStringLiteral("usr/bin/shardwise");
#endif
        return binaries;
    }

    ProcessResult installedCliPlan(const QString& model)
    {
        return runProcess(inRoot(QStringLiteral("usr/bin/shardwise-cli")),
                          {QStringLiteral("plan"), QStringLiteral("--model"), model, QStringLiteral("--gpu"), QStringLiteral("h200"),
                           QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--nodes"), QStringLiteral("1"),
                           QStringLiteral("--interconnect"), QStringLiteral("nvlink"), QStringLiteral("--seq"), QStringLiteral("2048"),
                           QStringLiteral("--micro-batch"), QStringLiteral("1")},
                          60'000, userEnvironment());
    }

private slots:
    void initTestCase()
    {
        const QList<QPair<QString, QString>> tools{
            {QStringLiteral("desktop-file-validate"), QStringLiteral("desktop-file-utils")},
            {QStringLiteral("appstreamcli"), QStringLiteral("appstream")},
            {QStringLiteral("dpkg-deb"), QStringLiteral("dpkg")},
            {QStringLiteral("dpkg-shlibdeps"), QStringLiteral("dpkg-dev")},
            {QStringLiteral("objdump"), QStringLiteral("binutils")},
            {QStringLiteral("gzip"), QStringLiteral("gzip")}};
        for (const auto& [tool, package] : tools)
            QVERIFY2(!QStandardPaths::findExecutable(tool).isEmpty(),
                     qPrintable(tool + QStringLiteral(" not found: install the Debian package ") + package + QStringLiteral(" (packaging/bootstrap.sh lists it)")));
    }

    void desktopFileValidates()
    {
        const ProcessResult r = runProcess(QStringLiteral("desktop-file-validate"), {m_source + QStringLiteral("/resources/shardwise.desktop")});
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("desktop-file-validate"))));
        // Hints (such as two main categories) exit 0 too; the file should draw none.
        QVERIFY2(r.out.trimmed().isEmpty() && r.err.trimmed().isEmpty(), qPrintable(r.describe(QStringLiteral("desktop-file-validate"))));
    }

    void metainfoValidates()
    {
        // --strict fails on warnings and infos as well as errors; only pedantic hints pass.
        const ProcessResult r = runProcess(QStringLiteral("appstreamcli"), {QStringLiteral("validate"), QStringLiteral("--no-net"), QStringLiteral("--strict"),
                                                                           m_source + QStringLiteral("/resources/org.shardwise.Shardwise.metainfo.xml")});
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("appstreamcli validate"))));
    }

    void iconRenderingHasItsSize_data()
    {
        QTest::addColumn<int>("size");
        for (const QString& n : kIconSizes)
            QTest::newRow(qPrintable(n + QLatin1Char('x') + n)) << n.toInt();
    }
    void iconRenderingHasItsSize()
    {
        QFETCH(int, size);
        const QString path = m_source + QStringLiteral("/resources/icons/hicolor/%1x%1/apps/shardwise.png").arg(size);
        QCOMPARE(pngSize(path), QSize(size, size));
    }

    void packageInstallsFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("cli") << QStringLiteral("usr/bin/shardwise-cli");
#ifdef SHARDWISE_PACKAGE_HAS_APP
        QTest::newRow("app") << QStringLiteral("usr/bin/shardwise");
        QTest::newRow("desktop file") << QStringLiteral("usr/share/applications/shardwise.desktop");
        QTest::newRow("metainfo") << QStringLiteral("usr/share/metainfo/org.shardwise.Shardwise.metainfo.xml");
        QTest::newRow("svg icon") << QStringLiteral("usr/share/icons/hicolor/scalable/apps/shardwise.svg");
        for (const QString& n : kIconSizes)
            QTest::newRow(qPrintable(QStringLiteral("png icon ") + n)) << QStringLiteral("usr/share/icons/hicolor/%1x%1/apps/shardwise.png").arg(n);
#endif
        QTest::newRow("model preset") << QStringLiteral("usr/share/shardwise/presets/models/qwen2.5-3b.json");
        QTest::newRow("gpu preset") << QStringLiteral("usr/share/shardwise/presets/gpus/h200.json");
        QTest::newRow("runner sources: top CMake") << QStringLiteral("usr/share/shardwise/runner-src/CMakeLists.txt");
        QTest::newRow("runner sources: standalone CMake") << QStringLiteral("usr/share/shardwise/runner-src/runner/standalone/CMakeLists.txt");
        QTest::newRow("runner sources: protocol") << QStringLiteral("usr/share/shardwise/runner-src/core/protocol/src/events.cpp");
    }
    void packageInstallsFile()
    {
        QFETCH(QString, path);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QVERIFY2(QFileInfo(inRoot(path)).isFile(), qPrintable(path + QStringLiteral(" is not in ") + m_deb));
    }

    void packageLeavesOutTheRunnerBinary()
    {
#ifndef SHARDWISE_RUNNER_BUILT
        QSKIP("shardwise-runner is not built here, so there is nothing to leave out");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QVERIFY2(!QFileInfo::exists(inRoot(QStringLiteral("usr/bin/shardwise-runner"))),
                 "shardwise-runner links LibTorch and must not ride in the desktop package");
    }

    void dependsNamesDebianRuntimePackage_data()
    {
        QTest::addColumn<QString>("package");
        QTest::newRow("libssh2") << QStringLiteral("libssh2-1");
        QTest::newRow("SQLite") << QStringLiteral("libsqlite3-0");
        QTest::newRow("C++ runtime") << QStringLiteral("libstdc++6");
#ifdef SHARDWISE_PACKAGE_HAS_APP
        // Core and the CLI are Qt-free; Qt comes in with the app.
        QTest::newRow("Qt core") << QStringLiteral("libqt6core6");
        QTest::newRow("Qt widgets") << QStringLiteral("libqt6widgets6");
        QTest::newRow("Qt charts") << QStringLiteral("libqt6charts6");
        QTest::newRow("Qt svg") << QStringLiteral("libqt6svg6");
#endif
    }
    void dependsNamesDebianRuntimePackage()
    {
        QFETCH(QString, package);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QString depends = controlField(QStringLiteral("Depends"));
        QVERIFY2(packageNames(depends).contains(package), qPrintable(QStringLiteral("Depends: ") + depends));
    }

    // Every shared library an installed binary names (objdump -p NEEDED) belongs to a Debian package
    // (dpkg -S on the file ld.so picks, from ldd) that Depends lists.
    void dependsCoverEveryNeededLibrary()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QSet<QString> depends = packageNames(controlField(QStringLiteral("Depends")));
        QVERIFY2(!depends.isEmpty(), "the package has no Depends");
        for (const QString& binary : installedBinaries()) {
            const ProcessResult objdump = runProcess(QStringLiteral("objdump"), {QStringLiteral("-p"), inRoot(binary)});
            QVERIFY2(objdump.ok(), qPrintable(objdump.describe(QStringLiteral("objdump"))));
            const ProcessResult ldd = runProcess(QStringLiteral("ldd"), {inRoot(binary)}, 60'000, userEnvironment());
            QVERIFY2(ldd.ok(), qPrintable(ldd.describe(QStringLiteral("ldd"))));
            const QRegularExpression neededLine(QStringLiteral("^\\s*NEEDED\\s+(\\S+)\\s*$"), QRegularExpression::MultilineOption);
            int needed = 0;
            for (auto it = neededLine.globalMatch(objdump.out); it.hasNext(); ++needed) {
                const QString soname = it.next().captured(1);
                // "libx.so.1 => /path/libx.so.1 (0x...)", or for the program interpreter "/path/ld-linux....so.2 (0x...)".
                const QString escaped = QRegularExpression::escape(soname);
                const QRegularExpression resolvedLine(QStringLiteral("^\\s*(?:%1 => (\\S+)|(/\\S*/%1) )").arg(escaped),
                                                      QRegularExpression::MultilineOption);
                const QRegularExpressionMatch resolved = resolvedLine.match(ldd.out);
                const QString path = resolved.captured(1).isEmpty() ? resolved.captured(2) : resolved.captured(1);
                QVERIFY2(path.startsWith(QLatin1Char('/')), qPrintable(binary + QStringLiteral(": ld.so does not find ") + soname + QLatin1Char('\n') + ldd.out));
                // Merged /usr: dpkg may record the file under /lib or /usr/lib, whichever ld.so did not report.
                const QString other = path.startsWith(QStringLiteral("/usr/")) ? path.mid(4) : QStringLiteral("/usr") + path;
                ProcessResult owner = runProcess(QStringLiteral("dpkg"), {QStringLiteral("-S"), path});
                if (!owner.ok())
                    owner = runProcess(QStringLiteral("dpkg"), {QStringLiteral("-S"), other});
                QVERIFY2(owner.ok(), qPrintable(owner.describe(QStringLiteral("dpkg -S ") + path)));
                const QString package = owner.out.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(':'), 0, 0).trimmed();
                QVERIFY2(depends.contains(package), qPrintable(QStringLiteral("%1 needs %2 from %3, which Depends lacks: %4")
                                                                   .arg(binary, soname, package, controlField(QStringLiteral("Depends")))));
            }
            QVERIFY2(needed > 0, qPrintable(binary + QStringLiteral(" names no shared libraries:\n") + objdump.out));
        }
    }

    void installedCliPlans()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const ProcessResult r = installedCliPlan(QStringLiteral("qwen2.5-3b"));
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("installed shardwise-cli plan"))));
        QVERIFY2(r.out.contains(QStringLiteral("Plan: Qwen2.5-3B")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("NVIDIA H200")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("1 node(s) x 8 GPU(s)")), qPrintable(r.out));
        for (const char* strategy : {"zero0", "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload", "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload"})
            QVERIFY2(QRegularExpression(QStringLiteral("^%1 +(yes|no) ").arg(QLatin1String(strategy)), QRegularExpression::MultilineOption).match(r.out).hasMatch(),
                     qPrintable(QStringLiteral("no row for ") + QLatin1String(strategy) + QLatin1Char('\n') + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("Recommendation: ")), qPrintable(r.out));
    }

    void installedAppStarts()
    {
#ifndef SHARDWISE_PACKAGE_HAS_APP
        QSKIP("the desktop application is not built here");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QProcessEnvironment env = userEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        const ProcessResult r = runProcess(inRoot(QStringLiteral("usr/bin/shardwise")), {QStringLiteral("--version")}, 60'000, env);
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("installed shardwise --version"))));
        QVERIFY2(r.out.contains(QStringLiteral(SHARDWISE_PROJECT_VERSION)), qPrintable(r.out));
    }

    // The installed CLI must read <exe>/../share/shardwise/presets, not the source tree it was built
    // from (still on this machine): a model that exists only in the scratch root proves which.
    void installedCliReadsPresetsBesideItself()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QFile original(inRoot(QStringLiteral("usr/share/shardwise/presets/models/qwen2.5-3b.json")));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QJsonObject model = QJsonDocument::fromJson(original.readAll()).object();
        QVERIFY(!model.isEmpty());
        model[QStringLiteral("id")] = QStringLiteral("installed-only-3b");
        model[QStringLiteral("name")] = QStringLiteral("Installed-only 3B");
        QFile copy(inRoot(QStringLiteral("usr/share/shardwise/presets/models/installed-only-3b.json")));
        QVERIFY(copy.open(QIODevice::WriteOnly | QIODevice::Truncate));
        copy.write(QJsonDocument(model).toJson());
        copy.close();

        const ProcessResult r = installedCliPlan(QStringLiteral("installed-only-3b"));
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("installed shardwise-cli plan"))));
        QVERIFY2(r.out.contains(QStringLiteral("Plan: Installed-only 3B")), qPrintable(r.out));
        QVERIFY2(!QFileInfo::exists(m_source + QStringLiteral("/resources/presets/models/installed-only-3b.json")),
                 "the source tree must not hold the probe model");
    }

    // What the package installs under share/shardwise/runner-src, and the published archive, are
    // byte for byte what node preparation uploads from a checkout, so they share its hash and cache.
    void runnerSourcesAreWhatNodePreparationUploads()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const auto fromCheckout = shardwise::dispatch::makeRunnerBundle(SHARDWISE_SOURCE_DIR);
        const auto fromPackage = shardwise::dispatch::makeRunnerBundle(inRoot(QStringLiteral("usr/share/shardwise/runner-src")).toStdString());
        QCOMPARE(QString::fromStdString(fromPackage.sha256), QString::fromStdString(fromCheckout.sha256));
        QCOMPARE(fromPackage.files.size(), fromCheckout.files.size());

        QProcess gunzip;
        gunzip.start(QStringLiteral("gzip"), {QStringLiteral("-dc"), QStringLiteral(SHARDWISE_RUNNER_ARCHIVE)});
        QVERIFY(gunzip.waitForFinished(60'000));
        QCOMPARE(gunzip.exitCode(), 0);
        const QByteArray archive = gunzip.readAllStandardOutput();
        QCOMPARE(QString::fromStdString(shardwise::dispatch::sha256Hex(std::string_view(archive.constData(), static_cast<std::size_t>(archive.size())))),
                 QString::fromStdString(fromCheckout.sha256));
    }

    // The installed sources configure and compile on their own, both ways a node builds them.
    void runnerSourcesConfigure_data()
    {
        QTest::addColumn<QString>("sourceSubdir");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("runner/standalone") << QStringLiteral("runner/standalone") << QStringList{};
        // The arguments node_preparation.cpp passes.
        QTest::newRow("top level, as node preparation") << QString()
                                                        << QStringList{QStringLiteral("-DSHARDWISE_BUILD_APP=OFF"), QStringLiteral("-DSHARDWISE_BUILD_CLI=OFF"),
                                                                       QStringLiteral("-DSHARDWISE_BUILD_TESTS=OFF")};
    }
    void runnerSourcesConfigure()
    {
        QFETCH(QString, sourceSubdir);
        QFETCH(QStringList, options);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QString source = inRoot(QStringLiteral("usr/share/shardwise/runner-src/") + sourceSubdir);
        const QString build = m_scratch + QStringLiteral("/runner-build-") + QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression(QStringLiteral("[^a-z]+")), QStringLiteral("-"));
        QStringList configure{QStringLiteral("-S"), source, QStringLiteral("-B"), build, QStringLiteral("-G"), QStringLiteral("Ninja"),
                              QStringLiteral("-DCMAKE_BUILD_TYPE=Release")};
        if (!QStringLiteral(SHARDWISE_CXX_LAUNCHER).isEmpty())
            configure << QStringLiteral("-DCMAKE_CXX_COMPILER_LAUNCHER=" SHARDWISE_CXX_LAUNCHER);
        const ProcessResult configured = runProcess(QStringLiteral(SHARDWISE_CMAKE), configure + options, 300'000);
        QVERIFY2(configured.ok(), qPrintable(configured.describe(QStringLiteral("cmake configure"))));
        QVERIFY2(configured.out.contains(QStringLiteral("Build files have been written")), qPrintable(configured.out));
        // spec and protocol: the core parts the runner compiles in, headers included.
        const ProcessResult built = runProcess(QStringLiteral(SHARDWISE_CMAKE), {QStringLiteral("--build"), build, QStringLiteral("--target"),
                                                                               QStringLiteral("shardwise_protocol"), QStringLiteral("-j2")},
                                               300'000);
        QVERIFY2(built.ok(), qPrintable(built.describe(QStringLiteral("cmake --build"))));
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
