// bench/rehearsal/capped.py and run.py's capped cells, on files written here: the matrix holds the plan's
// cap and the control for each native cell whose reserved bytes exceed the plan, run.py hands each
// row's cap to the runner as SHARDWISE_MEMORY_CAP_GIB (a stub runner that fails as out of memory below
// its allocated peak), and the report counts plan caps completed and controls out of memory.
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

bool run(const QString& program, const QStringList& args, QByteArray* out, QByteArray* err)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(120000))
        return false;
    *out = p.readAllStandardOutput();
    *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

void write(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestRehearsalCapped : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (m_python.isEmpty())
            QSKIP("python3 is not installed: bench/rehearsal cannot run");
        QVERIFY(m_dir.isValid());
    }

    void capsComeFromThePlanAndReachTheRunner()
    {
        const QString report = m_dir.filePath(QStringLiteral("report.tsv"));
        // zero3 reserves 16 GiB for 10 allocated and a plan of 10.89: capped. zero0's reserved bytes are
        // within 5 % of its plan: not capped. The torch cell is not the native runner's: not capped.
        write(report,
              "backend\tmodel\tstrategy\tworld\tseq\tmicro_batch\tprecision\tcheckpointing\texpandable\toutcome\t"
              "reserved_gib\tallocated_gib\tpredicted_less_context_gib\terror_vs_reserved\n"
              "native\tqwen2.5-3b\tzero3\t8\t2048\t1\tbf16\tnone\t0\tok\t16.0\t10.0\t10.89\t-0.32\n"
              "native\tqwen2.5-3b\tzero0\t8\t2048\t1\tbf16\tnone\t0\tok\t30.0\t29.2\t29.45\t-0.02\n"
              "torch\tqwen2.5-3b\tfsdp2_reshard\t8\t2048\t1\tbf16\tnone\t0\tok\t20.0\t12.0\t12.5\t-0.37\n");
        QByteArray matrix;
        QByteArray err;
        QVERIFY2(run(m_python,
                     { QStringLiteral(SHARDWISE_SOURCE_DIR "/bench/rehearsal/capped.py"), QStringLiteral("matrix"),
                       QStringLiteral("--from"), report },
                     &matrix, &err),
                 err.constData());
        const QStringList rows = QString::fromUtf8(matrix).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 3); // the header and zero3's two caps
        QCOMPARE(rows[1], QStringLiteral("native\tqwen2.5-3b\tzero3\t8\t2048\t1\tbf16\tnone\t0\t11.000"));
        QCOMPARE(rows[2], QStringLiteral("native\tqwen2.5-3b\tzero3\t8\t2048\t1\tbf16\tnone\t0\t9.000"));
        const QString matrixPath = m_dir.filePath(QStringLiteral("matrix.tsv"));
        write(matrixPath, matrix);

        // The stub runner allocates 10 GiB: below that cap it fails as out of memory, as the runner does.
        const QString stub = m_dir.filePath(QStringLiteral("stub-runner"));
        write(stub,
              "#!/bin/sh\n"
              "if [ -z \"$SHARDWISE_MEMORY_CAP_GIB\" ]; then echo 'no cap' >&2; exit 3; fi\n"
              "if awk \"BEGIN{exit !($SHARDWISE_MEMORY_CAP_GIB < 10)}\"; then\n"
              "  echo '{\"v\":1,\"event\":\"error\",\"rank\":0,\"kind\":\"oom\",\"message\":\"CUDA out of memory\"}'\n"
              "  exit 1\n"
              "fi\n"
              "echo '{\"v\":1,\"event\":\"summary\",\"rank\":0,\"memory\":{\"peak_allocated\":10737418240,"
              "\"peak_reserved\":11811160064}}'\n");
        QVERIFY(QFile::setPermissions(stub, QFile::permissions(stub) | QFile::ExeOwner));
        const QString out = m_dir.filePath(QStringLiteral("out"));
        QByteArray log;
        QVERIFY2(run(m_python,
                     { QStringLiteral(SHARDWISE_SOURCE_DIR "/bench/rehearsal/run.py"), QStringLiteral("--native"), stub,
                       QStringLiteral("--only"), QStringLiteral("native"), QStringLiteral("--matrix"), matrixPath,
                       QStringLiteral("--out"), out, QStringLiteral("--budget-s"), QStringLiteral("60") },
                     &log, &err),
                 err.constData());
        QVERIFY(QFile::exists(out
                              + QStringLiteral("/cells/native__qwen2.5-3b__zero3__w8__s2048__b1__bf16__ck-none__"
                                               "es0__cap11.000.jsonl")));

        QByteArray summary;
        QVERIFY2(
            run(m_python,
                { QStringLiteral(SHARDWISE_SOURCE_DIR "/bench/rehearsal/capped.py"), QStringLiteral("report"), out },
                &summary, &err),
            err.constData());
        const QString text = QString::fromUtf8(summary);
        QVERIFY2(text.contains(QStringLiteral("| 11.00 | completed | 10.00 | 11.00 |")), summary.constData());
        QVERIFY2(text.contains(QStringLiteral("| 9.00 | oom |")), summary.constData());
        QVERIFY2(text.contains(QStringLiteral(
                     "plan caps completed: 1 of 1; controls (90 % of the allocated peak) out of memory: 1 of 1")),
                 summary.constData());
    }

    void aReportWithNothingToCapSaysSo()
    {
        const QString report = m_dir.filePath(QStringLiteral("flat.tsv"));
        write(report,
              "backend\tmodel\tstrategy\tworld\tseq\tmicro_batch\tprecision\tcheckpointing\texpandable\toutcome\t"
              "reserved_gib\tallocated_gib\tpredicted_less_context_gib\terror_vs_reserved\n"
              "native\tqwen2.5-3b\tzero0\t8\t2048\t1\tbf16\tnone\t0\tok\t30.0\t29.2\t29.45\t-0.02\n");
        QByteArray out;
        QByteArray err;
        QVERIFY(!run(m_python,
                     { QStringLiteral(SHARDWISE_SOURCE_DIR "/bench/rehearsal/capped.py"), QStringLiteral("matrix"),
                       QStringLiteral("--from"), report },
                     &out, &err));
        QVERIFY2(err.contains("reserves more than 5 % above its plan"), err.constData());
    }

private:
    QTemporaryDir m_dir;
    QString m_python;
};

QTEST_GUILESS_MAIN(TestRehearsalCapped)
#include "test_rehearsal_capped.moc"
