// The Debian packages as a user gets them: desktop file and AppStream metainfo pass their validators,
// the icon renderings have their sizes, cpack builds shardwise and shardwise-runner from this build,
// and the two unpacked with dpkg -x into one scratch root run `shardwise-cli plan` on the presets they
// installed and the "Try it here" runs on this machine's CPU with the packaged runner. Each Depends
// must name a Debian package for every library its binaries load (for the runner, LibTorch's runtime
// package), the app recommends the runner of its own version, and the runner sources must be the
// very bytes node preparation uploads.

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
        return what + (finished ? QStringLiteral(" exited %1").arg(exitCode) : QStringLiteral(" did not finish"))
            + QStringLiteral("\nstdout:\n") + out.right(4000) + QStringLiteral("\nstderr:\n") + err.right(4000);
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
    env.remove(QStringLiteral("SHARDWISE_RUNNER"));
    return env;
}

// "a (>= 1), b | c, d" -> {a, b, c, d}
QSet<QString> packageNames(const QString& relationField)
{
    QSet<QString> names;
    for (const QString& relation :
         relationField.split(QRegularExpression(QStringLiteral("[,|]")), Qt::SkipEmptyParts)) {
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
        return (static_cast<quint32>(static_cast<quint8>(head[at])) << 24)
            | (static_cast<quint32>(static_cast<quint8>(head[at + 1])) << 16)
            | (static_cast<quint32>(static_cast<quint8>(head[at + 2])) << 8)
            | static_cast<quint32>(static_cast<quint8>(head[at + 3]));
    };
    return QSize(static_cast<int>(be32(16)), static_cast<int>(be32(20)));
}

const QStringList kIconSizes { QStringLiteral("16"), QStringLiteral("32"),  QStringLiteral("48"),
                               QStringLiteral("64"), QStringLiteral("128"), QStringLiteral("256") };

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT

private:
    const QString m_source = QStringLiteral(SHARDWISE_SOURCE_DIR);
    const QString m_scratch = QStringLiteral(SHARDWISE_BINARY_DIR "/tests/packaging-scratch");
    QString m_deb;       // the built shardwise .deb, once packageBuilt() succeeded
    QString m_runnerDeb; // the built shardwise-runner .deb, where the runner is built here
    QString m_root;      // both unpacked with dpkg -x: a scratch root as after installing them
    QString m_packageError;
    bool m_packageTried = false;

    QString inRoot(const QString& relative) const { return m_root + QLatin1Char('/') + relative; }

    // cpack over this build (no rebuild: cpack installs what the build tree holds), then dpkg -x of
    // each package; once for all package tests, each of which fails with the reason when it could not
    // be built.
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
        const ProcessResult cpack = runProcess(
            QStringLiteral(SHARDWISE_CPACK),
            { QStringLiteral("--config"), QStringLiteral(SHARDWISE_CPACK_CONFIG), QStringLiteral("-B"), debDir },
            300'000);
        if (!cpack.ok()) {
            m_packageError = cpack.describe(QStringLiteral("cpack"));
            return false;
        }
        const QStringList debs = QDir(debDir).entryList({ QStringLiteral("shardwise_*.deb") }, QDir::Files);
        if (debs.size() != 1) {
            m_packageError = QStringLiteral("expected one shardwise_*.deb in %1, found: %2")
                                 .arg(debDir, debs.join(QStringLiteral(", ")));
            return false;
        }
        m_deb = debDir + QLatin1Char('/') + debs.first();
        const QStringList runnerDebs
            = QDir(debDir).entryList({ QStringLiteral("shardwise-runner_*.deb") }, QDir::Files);
#ifdef SHARDWISE_RUNNER_BUILT
        if (runnerDebs.size() != 1) {
            m_packageError = QStringLiteral("expected one shardwise-runner_*.deb in %1, found: %2")
                                 .arg(debDir, QDir(debDir).entryList(QDir::Files).join(QStringLiteral(", ")));
            return false;
        }
        m_runnerDeb = debDir + QLatin1Char('/') + runnerDebs.first();
#else
        if (!runnerDebs.isEmpty()) {
            m_packageError = QStringLiteral("no runner is built here, yet cpack wrote %1")
                                 .arg(runnerDebs.join(QStringLiteral(", ")));
            return false;
        }
#endif
        for (const QString& deb : { m_deb, m_runnerDeb }) {
            if (deb.isEmpty())
                continue;
            const ProcessResult extract = runProcess(QStringLiteral("dpkg"), { QStringLiteral("-x"), deb, m_root });
            if (!extract.ok()) {
                m_packageError = extract.describe(QStringLiteral("dpkg -x ") + deb);
                return false;
            }
        }
        return true;
    }

    QString controlField(const QString& field)
    {
        return controlField(m_deb, field);
    }
    static QString controlField(const QString& deb, const QString& field)
    {
        const ProcessResult r = runProcess(QStringLiteral("dpkg-deb"), { QStringLiteral("-f"), deb, field });
        return r.ok() ? r.out.trimmed() : QString();
    }

    // The paths a package holds (dpkg-deb -c), as "usr/bin/x".
    static QStringList packageContents(const QString& deb)
    {
        const ProcessResult r = runProcess(QStringLiteral("dpkg-deb"), { QStringLiteral("-c"), deb });
        QStringList paths;
        const QRegularExpression entry(QStringLiteral("\\./(\\S+)$"), QRegularExpression::MultilineOption);
        for (auto it = entry.globalMatch(r.out); it.hasNext();)
            paths << it.next().captured(1);
        return paths;
    }

    QStringList installedBinaries() const
    {
        QStringList binaries { QStringLiteral("usr/bin/shardwise-cli") };
#ifdef SHARDWISE_PACKAGE_HAS_APP
        binaries << QStringLiteral("usr/bin/shardwise");
#endif
        return binaries;
    }

    ProcessResult installedCliPlan(const QString& model)
    {
        return runProcess(inRoot(QStringLiteral("usr/bin/shardwise-cli")),
                          { QStringLiteral("plan"), QStringLiteral("--model"), model, QStringLiteral("--gpu"),
                            QStringLiteral("h200"), QStringLiteral("--gpus-per-node"), QStringLiteral("8"),
                            QStringLiteral("--nodes"), QStringLiteral("1"), QStringLiteral("--interconnect"),
                            QStringLiteral("nvlink"), QStringLiteral("--seq"), QStringLiteral("2048"),
                            QStringLiteral("--micro-batch"), QStringLiteral("1") },
                          60'000, userEnvironment());
    }

private slots:
    void initTestCase()
    {
        const QList<QPair<QString, QString>> tools { { QStringLiteral("desktop-file-validate"),
                                                       QStringLiteral("desktop-file-utils") },
                                                     { QStringLiteral("appstreamcli"), QStringLiteral("appstream") },
                                                     { QStringLiteral("dpkg-deb"), QStringLiteral("dpkg") },
                                                     { QStringLiteral("dpkg-shlibdeps"), QStringLiteral("dpkg-dev") },
                                                     { QStringLiteral("objdump"), QStringLiteral("binutils") },
                                                     { QStringLiteral("gzip"), QStringLiteral("gzip") },
                                                     { QStringLiteral("bash"), QStringLiteral("bash") } };
        for (const auto& [tool, package] : tools)
            QVERIFY2(!QStandardPaths::findExecutable(tool).isEmpty(),
                     qPrintable(tool + QStringLiteral(" not found: install the Debian package ") + package
                                + QStringLiteral(" (packaging/bootstrap.sh lists it)")));
    }

    // `bootstrap.sh run` installs what building and running need, `test` that and the test tools.
    void bootstrapRunInstallsNoTestTools()
    {
        const QString script = m_source + QStringLiteral("/packaging/bootstrap.sh");
        const ProcessResult run
            = runProcess(QStringLiteral("bash"), { script, QStringLiteral("list"), QStringLiteral("run") });
        QVERIFY2(run.ok(), qPrintable(run.describe(QStringLiteral("bootstrap.sh list run"))));
        const ProcessResult test
            = runProcess(QStringLiteral("bash"), { script, QStringLiteral("list"), QStringLiteral("test") });
        QVERIFY2(test.ok(), qPrintable(test.describe(QStringLiteral("bootstrap.sh list test"))));
        const QStringList runList = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList testList = test.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        // What running needs: the build (the app, the CLI, the CPU runner) and the torch backend.
        for (const char* needed :
             { "cmake", "qt6-base-dev", "qt6-charts-dev", "libtorch-dev", "libssh2-1-dev", "python3-torch" })
            QVERIFY2(
                runList.contains(QLatin1String(needed)),
                qPrintable(QLatin1String(needed) + QStringLiteral(" missing from: ") + runList.join(QLatin1Char(' '))));
        // Only tests start or check these: sshd on loopback, the sqlite3 shell, the style check, the
        // sanitizer and fuzz compiler, the package and desktop-file validators, YAML parsing of exports.
        for (const char* testOnly :
             { "openssh-server", "sqlite3", "git", "clang", "libclang-rt-14-dev", "clang-format", "clang-tidy",
               "desktop-file-utils", "appstream", "dpkg-dev", "librsvg2-bin", "python3-yaml" }) {
            QVERIFY2(!runList.contains(QLatin1String(testOnly)),
                     qPrintable(QLatin1String(testOnly) + QStringLiteral(" is in the run list")));
            QVERIFY2(testList.contains(QLatin1String(testOnly)),
                     qPrintable(QLatin1String(testOnly) + QStringLiteral(" is missing from the test list")));
        }
        for (const QString& p : runList)
            QVERIFY2(testList.contains(p), qPrintable(p + QStringLiteral(" is in the run list but not the test list")));
        const ProcessResult bad
            = runProcess(QStringLiteral("bash"), { script, QStringLiteral("list"), QStringLiteral("tests") });
        QVERIFY2(bad.finished && bad.exitCode == 2 && bad.err.contains(QStringLiteral("usage:")),
                 qPrintable(bad.describe(QStringLiteral("bootstrap.sh list tests"))));
    }

    void desktopFileValidates()
    {
        const ProcessResult r = runProcess(QStringLiteral("desktop-file-validate"),
                                           { m_source + QStringLiteral("/resources/shardwise.desktop") });
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("desktop-file-validate"))));
        // Hints (such as two main categories) exit 0 too; the file should draw none.
        QVERIFY2(r.out.trimmed().isEmpty() && r.err.trimmed().isEmpty(),
                 qPrintable(r.describe(QStringLiteral("desktop-file-validate"))));
    }

    void metainfoValidates()
    {
        // --strict fails on warnings and infos as well as errors; only pedantic hints pass.
        const ProcessResult r
            = runProcess(QStringLiteral("appstreamcli"),
                         { QStringLiteral("validate"), QStringLiteral("--no-net"), QStringLiteral("--strict"),
                           m_source + QStringLiteral("/resources/org.shardwise.Shardwise.metainfo.xml") });
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
            QTest::newRow(qPrintable(QStringLiteral("png icon ") + n))
                << QStringLiteral("usr/share/icons/hicolor/%1x%1/apps/shardwise.png").arg(n);
#endif
        // Debian policy: the copyright file and the changelog (gzip -9n) in the package's doc folder,
        // the man page compressed.
        QTest::newRow("copyright") << QStringLiteral("usr/share/doc/shardwise/copyright");
        QTest::newRow("changelog") << QStringLiteral("usr/share/doc/shardwise/changelog.gz");
        QTest::newRow("man page") << QStringLiteral("usr/share/man/man1/shardwise-cli.1.gz");
#ifdef SHARDWISE_PACKAGE_HAS_APP
        // The user guide and the docs it links to, which Help > User guide opens offline.
        for (const char* doc : { "user-guide.md", "formulas.md", "ssh.md", "store.md", "cloud.md", "calibration.md",
                                 "framework-configs.md" })
            QTest::newRow(doc) << QStringLiteral("usr/share/doc/shardwise/") + QLatin1String(doc);
#endif
        QTest::newRow("model preset") << QStringLiteral("usr/share/shardwise/presets/models/qwen2.5-3b.json");
        QTest::newRow("gpu preset") << QStringLiteral("usr/share/shardwise/presets/gpus/h200.json");
        QTest::newRow("runner sources: top CMake") << QStringLiteral("usr/share/shardwise/runner-src/CMakeLists.txt");
        QTest::newRow("runner sources: standalone CMake")
            << QStringLiteral("usr/share/shardwise/runner-src/runner/standalone/CMakeLists.txt");
        QTest::newRow("runner sources: protocol")
            << QStringLiteral("usr/share/shardwise/runner-src/core/protocol/src/events.cpp");
    }
    void packageInstallsFile()
    {
        QFETCH(QString, path);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QVERIFY2(QFileInfo(inRoot(path)).isFile(), qPrintable(path + QStringLiteral(" is not in ") + m_deb));
        if (path.endsWith(QLatin1String(".gz"))) {
            // gzip -9n: no file name and no time stamp in the header (reproducible, lintian-clean).
            QFile gz(inRoot(path));
            QVERIFY(gz.open(QIODevice::ReadOnly));
            const QByteArray header = gz.read(10);
            QVERIFY(header.size() == 10 && header.startsWith("\x1f\x8b"));
            QCOMPARE(int(header.at(3)) & 0x08, 0);           // FNAME flag
            QCOMPARE(header.mid(4, 4), QByteArray(4, '\0')); // MTIME
        }
    }

    // No uncompressed man page beside the compressed one, and the runner package has its own
    // copyright and changelog.
    void packageFollowsDebianDocumentationPolicy()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QStringList app = packageContents(m_deb);
        QVERIFY2(!app.contains(QStringLiteral("usr/share/man/man1/shardwise-cli.1")),
                 qPrintable(app.join(QLatin1Char('\n'))));
        QFile file(inRoot(QStringLiteral("usr/share/doc/shardwise/copyright")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString copyright = QString::fromUtf8(file.readAll());
        QVERIFY2(copyright.startsWith(
                     QStringLiteral("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")),
                 qPrintable(copyright));
#ifdef SHARDWISE_RUNNER_BUILT
        const QStringList runner = packageContents(m_runnerDeb);
        for (const char* doc :
             { "usr/share/doc/shardwise-runner/copyright", "usr/share/doc/shardwise-runner/changelog.gz" })
            QVERIFY2(runner.contains(QLatin1String(doc)), doc);
#endif
    }

    // The runner rides in its own package, built against this machine's LibTorch (Debian's
    // libtorch-dev on Debian 12): the desktop package stays free of LibTorch.
    void runnerIsPackagedApart()
    {
#ifndef SHARDWISE_RUNNER_BUILT
        QSKIP("shardwise-runner is not built here (SHARDWISE_BUILD_RUNNER=OFF), so there is no runner package");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        // Beside shardwise-cli and shardwise, where they look for it first.
        const QStringList runner = packageContents(m_runnerDeb);
        QVERIFY2(runner.contains(QStringLiteral("usr/bin/shardwise-runner")),
                 qPrintable(runner.join(QLatin1Char('\n'))));
        QVERIFY2(runner.contains(QStringLiteral("usr/bin/shardwise-torch-runner")),
                 qPrintable(runner.join(QLatin1Char('\n'))));
        QCOMPARE(controlField(m_runnerDeb, QStringLiteral("Package")), QStringLiteral("shardwise-runner"));
        const QStringList app = packageContents(m_deb);
        QVERIFY2(app.contains(QStringLiteral("usr/bin/shardwise-cli")), qPrintable(app.join(QLatin1Char('\n'))));
        for (const QString& path : app)
            QVERIFY2(!path.contains(QStringLiteral("shardwise-runner"))
                         && !path.contains(QStringLiteral("shardwise-torch-runner")),
                     qPrintable(path + QStringLiteral(" is in the desktop package")));
        QCOMPARE(controlField(m_deb, QStringLiteral("Package")), QStringLiteral("shardwise"));
        QVERIFY2(!packageNames(controlField(m_deb, QStringLiteral("Depends"))).contains(QStringLiteral("libtorch1.13")),
                 qPrintable(controlField(m_deb, QStringLiteral("Depends"))));
    }

    // The runner's Depends names the Debian package that holds the LibTorch it loads (libtorch1.13,
    // the runtime libraries of libtorch-dev and python3-torch on Debian 12).
    void runnerDependsOnLibTorchRuntime()
    {
#ifndef SHARDWISE_RUNNER_BUILT
        QSKIP("shardwise-runner is not built here (SHARDWISE_BUILD_RUNNER=OFF), so there is no runner package");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const ProcessResult ldd = runProcess(
            QStringLiteral("ldd"), { inRoot(QStringLiteral("usr/bin/shardwise-runner")) }, 60'000, userEnvironment());
        QVERIFY2(ldd.ok(), qPrintable(ldd.describe(QStringLiteral("ldd"))));
        const QRegularExpressionMatch torch
            = QRegularExpression(QStringLiteral("libtorch_cpu\\.so\\S* => (\\S+)")).match(ldd.out);
        QVERIFY2(torch.hasMatch(), qPrintable(QStringLiteral("the runner loads no libtorch_cpu:\n") + ldd.out));
        ProcessResult owner = runProcess(QStringLiteral("dpkg"), { QStringLiteral("-S"), torch.captured(1) });
        if (!owner.ok())
            owner = runProcess(QStringLiteral("dpkg"),
                               { QStringLiteral("-S"), QStringLiteral("/usr") + torch.captured(1) });
        QVERIFY2(owner.ok(), qPrintable(owner.describe(QStringLiteral("dpkg -S ") + torch.captured(1))));
        const QString torchPackage
            = owner.out.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(':'), 0, 0).trimmed();
        QVERIFY2(torchPackage.startsWith(QStringLiteral("libtorch")) && !torchPackage.endsWith(QStringLiteral("-dev")),
                 qPrintable(torchPackage));
        const QString depends = controlField(m_runnerDeb, QStringLiteral("Depends"));
        QVERIFY2(packageNames(depends).contains(torchPackage), qPrintable(QStringLiteral("Depends: ") + depends));
        // The torch backend harness (shardwise-torch-runner) wants PyTorch's Python package.
        QVERIFY2(packageNames(controlField(m_runnerDeb, QStringLiteral("Recommends")))
                     .contains(QStringLiteral("python3-torch")),
                 qPrintable(controlField(m_runnerDeb, QStringLiteral("Recommends"))));
    }

    // The app recommends (rather than depends on) the runner of its own version: planning, comparing
    // and measuring on SSH nodes work without it, and apt installs recommended packages by default.
    void appRecommendsItsRunner()
    {
#ifndef SHARDWISE_RUNNER_BUILT
        QSKIP("shardwise-runner is not built here (SHARDWISE_BUILD_RUNNER=OFF), so there is no runner package");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QString recommends = controlField(m_deb, QStringLiteral("Recommends"));
        QVERIFY2(recommends.split(QLatin1Char(','))
                     .contains(QStringLiteral(" shardwise-runner (= " SHARDWISE_PROJECT_VERSION ")")),
                 qPrintable(QStringLiteral("Recommends: ") + recommends));
        QVERIFY2(
            !packageNames(controlField(m_deb, QStringLiteral("Depends"))).contains(QStringLiteral("shardwise-runner")),
            qPrintable(controlField(m_deb, QStringLiteral("Depends"))));
    }

    // Both packages carry the project's version, and the packaged runner says the same.
    void packagesCarryTheVersionTheBinariesPrint()
    {
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QCOMPARE(controlField(m_deb, QStringLiteral("Version")), QStringLiteral(SHARDWISE_PROJECT_VERSION));
#ifdef SHARDWISE_RUNNER_BUILT
        QCOMPARE(controlField(m_runnerDeb, QStringLiteral("Version")), QStringLiteral(SHARDWISE_PROJECT_VERSION));
        const ProcessResult version = runProcess(inRoot(QStringLiteral("usr/bin/shardwise-runner")),
                                                 { QStringLiteral("--version") }, 60'000, userEnvironment());
        QVERIFY2(version.ok(), qPrintable(version.describe(QStringLiteral("installed shardwise-runner --version"))));
        QVERIFY2(version.out.startsWith(QStringLiteral("shardwise-runner " SHARDWISE_PROJECT_VERSION " ")),
                 qPrintable(version.out));
#endif
    }

    // "Try it here" (the tiny decoder on two CPU ranks) measured by the unpacked packages alone: the
    // installed CLI with the installed runner (named, since the CLI would also find this build tree's
    // runner; an installed CLI finds the one beside it first) and the presets beside itself.
    void tryItHereRunsOnTheInstalledRunner()
    {
#ifndef SHARDWISE_RUNNER_BUILT
        QSKIP("shardwise-runner is not built here (SHARDWISE_BUILD_RUNNER=OFF), so there is no runner package");
#endif
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        QProcessEnvironment env = userEnvironment();
        env.insert(QStringLiteral("SHARDWISE_DB"), m_scratch + QStringLiteral("/try-it-here.sqlite"));
        const ProcessResult r = runProcess(
            inRoot(QStringLiteral("usr/bin/shardwise-cli")),
            { QStringLiteral("run"), QStringLiteral("--local"), QStringLiteral("--ranks"), QStringLiteral("2"),
              QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--model"), QStringLiteral("tiny"),
              QStringLiteral("--strategy"), QStringLiteral("zero3"), QStringLiteral("--steps"), QStringLiteral("2"),
              QStringLiteral("--seq"), QStringLiteral("32"), QStringLiteral("--runner"),
              inRoot(QStringLiteral("usr/bin/shardwise-runner")) },
            300'000, env);
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral("installed shardwise-cli run --local --device cpu"))));
        QVERIFY2(QRegularExpression(QStringLiteral("^zero3 +native +ok "), QRegularExpression::MultilineOption)
                     .match(r.out)
                     .hasMatch(),
                 qPrintable(r.out));
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
    // (dpkg -S on the file ld.so picks, from ldd) that its package's Depends lists.
    void dependsCoverEveryNeededLibrary_data()
    {
        QTest::addColumn<bool>("runnerPackage");
        QTest::newRow("shardwise") << false;
#ifdef SHARDWISE_RUNNER_BUILT
        QTest::newRow("shardwise-runner") << true;
#endif
    }
    void dependsCoverEveryNeededLibrary()
    {
        QFETCH(bool, runnerPackage);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QString deb = runnerPackage ? m_runnerDeb : m_deb;
        const QString dependsField = controlField(deb, QStringLiteral("Depends"));
        const QSet<QString> depends = packageNames(dependsField);
        QVERIFY2(!depends.isEmpty(), "the package has no Depends");
        const QStringList binaries
            = runnerPackage ? QStringList { QStringLiteral("usr/bin/shardwise-runner") } : installedBinaries();
        for (const QString& binary : binaries) {
            const ProcessResult objdump
                = runProcess(QStringLiteral("objdump"), { QStringLiteral("-p"), inRoot(binary) });
            QVERIFY2(objdump.ok(), qPrintable(objdump.describe(QStringLiteral("objdump"))));
            const ProcessResult ldd = runProcess(QStringLiteral("ldd"), { inRoot(binary) }, 60'000, userEnvironment());
            QVERIFY2(ldd.ok(), qPrintable(ldd.describe(QStringLiteral("ldd"))));
            const QRegularExpression neededLine(QStringLiteral("^\\s*NEEDED\\s+(\\S+)\\s*$"),
                                                QRegularExpression::MultilineOption);
            int needed = 0;
            for (auto it = neededLine.globalMatch(objdump.out); it.hasNext(); ++needed) {
                const QString soname = it.next().captured(1);
                // "libx.so.1 => /path/libx.so.1 (0x...)", or for the program interpreter "/path/ld-linux....so.2
                // (0x...)".
                const QString escaped = QRegularExpression::escape(soname);
                const QRegularExpression resolvedLine(QStringLiteral("^\\s*(?:%1 => (\\S+)|(/\\S*/%1) )").arg(escaped),
                                                      QRegularExpression::MultilineOption);
                const QRegularExpressionMatch resolved = resolvedLine.match(ldd.out);
                const QString path = resolved.captured(1).isEmpty() ? resolved.captured(2) : resolved.captured(1);
                QVERIFY2(path.startsWith(QLatin1Char('/')),
                         qPrintable(binary + QStringLiteral(": ld.so does not find ") + soname + QLatin1Char('\n')
                                    + ldd.out));
                // Merged /usr: dpkg may record the file under /lib or /usr/lib, whichever ld.so did not report.
                const QString other
                    = path.startsWith(QStringLiteral("/usr/")) ? path.mid(4) : QStringLiteral("/usr") + path;
                ProcessResult owner = runProcess(QStringLiteral("dpkg"), { QStringLiteral("-S"), path });
                if (!owner.ok())
                    owner = runProcess(QStringLiteral("dpkg"), { QStringLiteral("-S"), other });
                QVERIFY2(owner.ok(), qPrintable(owner.describe(QStringLiteral("dpkg -S ") + path)));
                const QString package
                    = owner.out.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(':'), 0, 0).trimmed();
                QVERIFY2(depends.contains(package),
                         qPrintable(QStringLiteral("%1 needs %2 from %3, which Depends lacks: %4")
                                        .arg(binary, soname, package, dependsField)));
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
        QVERIFY2(r.out.contains(QStringLiteral("1 node x 8 GPUs")), qPrintable(r.out));
        for (const char* strategy : { "zero0", "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload",
                                      "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload" })
            QVERIFY2(QRegularExpression(QStringLiteral("^%1 +(yes|no) ").arg(QLatin1String(strategy)),
                                        QRegularExpression::MultilineOption)
                         .match(r.out)
                         .hasMatch(),
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
        const ProcessResult r
            = runProcess(inRoot(QStringLiteral("usr/bin/shardwise")), { QStringLiteral("--version") }, 60'000, env);
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
        const auto fromPackage = shardwise::dispatch::makeRunnerBundle(
            inRoot(QStringLiteral("usr/share/shardwise/runner-src")).toStdString());
        QCOMPARE(QString::fromStdString(fromPackage.sha256), QString::fromStdString(fromCheckout.sha256));
        QCOMPARE(fromPackage.files.size(), fromCheckout.files.size());

        QProcess gunzip;
        gunzip.start(QStringLiteral("gzip"), { QStringLiteral("-dc"), QStringLiteral(SHARDWISE_RUNNER_ARCHIVE) });
        QVERIFY(gunzip.waitForFinished(60'000));
        QCOMPARE(gunzip.exitCode(), 0);
        const QByteArray archive = gunzip.readAllStandardOutput();
        QCOMPARE(QString::fromStdString(shardwise::dispatch::sha256Hex(
                     std::string_view(archive.constData(), static_cast<std::size_t>(archive.size())))),
                 QString::fromStdString(fromCheckout.sha256));
    }

    // The installed sources configure and compile on their own, both ways a node builds them.
    void runnerSourcesConfigure_data()
    {
        QTest::addColumn<QString>("sourceSubdir");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("runner/standalone") << QStringLiteral("runner/standalone") << QStringList {};
        // The arguments node_preparation.cpp passes.
        QTest::newRow("top level, as node preparation")
            << QString()
            << QStringList { QStringLiteral("-DSHARDWISE_BUILD_APP=OFF"), QStringLiteral("-DSHARDWISE_BUILD_CLI=OFF"),
                             QStringLiteral("-DSHARDWISE_BUILD_TESTS=OFF") };
    }
    void runnerSourcesConfigure()
    {
        QFETCH(QString, sourceSubdir);
        QFETCH(QStringList, options);
        QVERIFY2(packageBuilt(), qPrintable(m_packageError));
        const QString source = inRoot(QStringLiteral("usr/share/shardwise/runner-src/") + sourceSubdir);
        const QString build = m_scratch + QStringLiteral("/runner-build-")
            + QString::fromLatin1(QTest::currentDataTag())
                  .replace(QRegularExpression(QStringLiteral("[^a-z]+")), QStringLiteral("-"));
        QStringList configure { QStringLiteral("-S"),
                                source,
                                QStringLiteral("-B"),
                                build,
                                QStringLiteral("-G"),
                                QStringLiteral("Ninja"),
                                QStringLiteral("-DCMAKE_BUILD_TYPE=Release") };
        if (!QStringLiteral(SHARDWISE_CXX_LAUNCHER).isEmpty())
            configure << QStringLiteral("-DCMAKE_CXX_COMPILER_LAUNCHER=" SHARDWISE_CXX_LAUNCHER);
        const ProcessResult configured = runProcess(QStringLiteral(SHARDWISE_CMAKE), configure + options, 300'000);
        QVERIFY2(configured.ok(), qPrintable(configured.describe(QStringLiteral("cmake configure"))));
        QVERIFY2(configured.out.contains(QStringLiteral("Build files have been written")), qPrintable(configured.out));
        // spec and protocol: the core parts the runner compiles in, headers included.
        const ProcessResult built = runProcess(QStringLiteral(SHARDWISE_CMAKE),
                                               { QStringLiteral("--build"), build, QStringLiteral("--target"),
                                                 QStringLiteral("shardwise_protocol"), QStringLiteral("-j2") },
                                               300'000);
        QVERIFY2(built.ok(), qPrintable(built.describe(QStringLiteral("cmake --build"))));
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
