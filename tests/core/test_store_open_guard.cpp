// What opening the run store refuses and what it still allows, through the real shardwise-cli on real
// SQLite files: a damaged store is refused and left byte for byte as it was, an empty file where a
// store was is reported instead of becoming a new store, and a store this user cannot write is read
// (runs list) but never recorded into (run stops before any rank starts).
#include "shardwise/store/database.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace shardwise;
using namespace shardwise::store;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

// Root writes any file whatever its mode, so a read-only store is only read-only to another user:
// as root the CLI runs as 'nobody' through setpriv.
bool runsAsOtherUser()
{
    return ::geteuid() == 0;
}

CliResult runCli(const QStringList& args)
{
    QProcess p;
    if (runsAsOtherUser())
        p.start(QStringLiteral("setpriv"),
                QStringList { QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                              QStringLiteral("--clear-groups"), QStringLiteral(SHARDWISE_CLI) }
                    + args);
    else
        p.start(QStringLiteral(SHARDWISE_CLI), args);
    CliResult r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QByteArray contents(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A store with one recorded run, in a folder every user may enter.
QString storeWithOneRun(const QTemporaryDir& dir, const QString& name)
{
    QFile::setPermissions(dir.path(),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther
                              | QFile::ReadGroup | QFile::ExeGroup);
    const QString path = dir.filePath(name);
    Database db = Database::open(path.toStdString());
    fixtures::SyntheticRun run;
    run.config = fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 2);
    run.gpuName = "NVIDIA L4";
    fixtures::recordRun(db, run);
    return path;
}

QStringList runLocal(const QString& db, const QString& logDir)
{
    return { QStringLiteral("run"),        QStringLiteral("--local"),
             QStringLiteral("--runner"),   QStringLiteral(SHARDWISE_RUNNER),
             QStringLiteral("--model"),    QStringLiteral("tiny"),
             QStringLiteral("--strategy"), QStringLiteral("zero1"),
             QStringLiteral("--ranks"),    QStringLiteral("2"),
             QStringLiteral("--db"),       db,
             QStringLiteral("--log-dir"),  logDir };
}

} // namespace

class TestStoreOpenGuard : public QObject {
    Q_OBJECT

private slots:
    void corruptStoreIsRefusedAndNeverWritten()
    {
        QTemporaryDir dir;
        const QString path = storeWithOneRun(dir, QStringLiteral("runs.sqlite"));
        {
            // Pages 2 and 3 (table roots) overwritten, as a bad disk block or a partial copy would.
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek(4096));
            f.write(QByteArray(8192, '\xa5'));
        }
        const QByteArray damaged = contents(path);

        const CliResult list = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path });
        QCOMPARE(list.exitCode, 1);
        QVERIFY2(list.err.contains(path) && list.err.contains(QStringLiteral("is corrupt")), qPrintable(list.err));
        QVERIFY2(list.err.contains(QStringLiteral("quick_check")), qPrintable(list.err));

        const QString logs = dir.filePath(QStringLiteral("logs"));
        const CliResult run = runCli(runLocal(path, logs));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(path) && run.err.contains(QStringLiteral("is corrupt")), qPrintable(run.err));
        QVERIFY2(!QDir(logs).exists(), "a rank started although the store was refused");

        // The library refuses it too, for the GUI, and none of the refusals wrote a byte.
        QVERIFY_THROWS_EXCEPTION(StoreError, Database::open(path.toStdString()));
        QVERIFY(contents(path) == damaged);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")) || QFileInfo(path + QStringLiteral("-wal")).size() == 0);
    }

    void emptyFileWhereAStoreWasIsReported()
    {
        QTemporaryDir dir;
        const QString path = storeWithOneRun(dir, QStringLiteral("runs.sqlite"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.close();

        const CliResult list = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path });
        QCOMPARE(list.exitCode, 1);
        QVERIFY2(list.err.contains(path) && list.err.contains(QStringLiteral("empty file")), qPrintable(list.err));
        QCOMPARE(QFileInfo(path).size(), qint64(0));
        QVERIFY_THROWS_EXCEPTION(StoreError, Database::open(path.toStdString()));
        QCOMPARE(QFileInfo(path).size(), qint64(0));
    }

    void newStoreIsCreatedComplete()
    {
        // The counterpart of the empty-file refusal: a path with no file becomes a working store,
        // and no half-built file is left beside it.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/new.sqlite"));
        {
            const Database db = Database::open(path.toStdString());
            QCOMPARE(db.integrityCheck(), std::string("ok"));
            QCOMPARE(db.journalMode(), std::string("wal"));
        }
        QVERIFY(QFileInfo(path).size() > 0);
        const QStringList left = QDir(dir.filePath(QStringLiteral("sub"))).entryList(QDir::Files);
        QVERIFY2(left == QStringList { QStringLiteral("new.sqlite") }, qPrintable(left.join(QLatin1Char(' '))));
    }

    void readOnlyFileIsListedButNotRecordedInto()
    {
        QTemporaryDir dir;
        const QString path = storeWithOneRun(dir, QStringLiteral("runs.sqlite"));
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
        if (!runsAsOtherUser())
            QFile::setPermissions(dir.path(), QFile::permissions(dir.path()) | QFile::WriteOwner);
        const QByteArray before = contents(path);

        const CliResult list = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path });
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        QVERIFY2(list.out.contains(QStringLiteral("zero2")), qPrintable(list.out));
        QVERIFY2(list.err.contains(QStringLiteral("not writable")), qPrintable(list.err));

        const QString logs = dir.filePath(QStringLiteral("logs"));
        const CliResult run = runCli(runLocal(path, logs));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(path) && run.err.contains(QStringLiteral("read-only"))
                     && run.err.contains(QStringLiteral("--no-store")),
                 qPrintable(run.err));
        QVERIFY2(!run.err.contains(QStringLiteral("starting")), qPrintable(run.err));
        QVERIFY2(!QDir(logs).exists(), "a rank started although the store cannot take its results");
        QVERIFY(contents(path) == before);
    }

    void storeInReadOnlyFolderIsListed()
    {
        // No -wal or -shm can be made beside it: the store is read as it stands.
        QTemporaryDir dir;
        const QString path = storeWithOneRun(dir, QStringLiteral("runs.sqlite"));
        QVERIFY(QFile::setPermissions(dir.path(),
                                      QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup
                                          | QFile::ReadOther | QFile::ExeOther));
        const CliResult list = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path });
        QFile::setPermissions(dir.path(), QFile::permissions(dir.path()) | QFile::WriteOwner);
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        QVERIFY2(list.out.contains(QStringLiteral("zero2")), qPrintable(list.out));
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
    }
};

QTEST_GUILESS_MAIN(TestStoreOpenGuard)
#include "test_store_open_guard.moc"
