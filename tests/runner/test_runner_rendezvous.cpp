// Where a real 2-rank run listens: the rendezvous binds only the address MASTER_ADDR names and is
// closed once the ranks are connected, and Gloo's pairs listen on the route to MASTER_ADDR, so no
// socket of the runner's processes is ever bound to 0.0.0.0 or [::] (docs/runner.md, "Rendezvous").
// The listening sockets are read from /proc/net/tcp{,6} and matched to the processes through the
// socket inodes in /proc/<pid>/fd.
#include "rank_launch.hpp"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QtTest>

#include <thread>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

struct Listener {
    QString local; // "0.0.0.0:29500", "[::]:29500", "127.0.0.1:29500"
    bool wildcard = false;
    quint64 inode = 0;
};

// "0100007F:7530" (tcp) or 32 hex digits ":PORT" (tcp6) as the kernel writes them.
Listener parseLocal(const QByteArray& hex, quint64 inode)
{
    const auto parts = hex.split(':');
    Listener l;
    l.inode = inode;
    const QString port = QString::number(parts.value(1).toUInt(nullptr, 16));
    const QByteArray addr = parts.value(0);
    l.wildcard = addr.count('0') == addr.size();
    if (addr.size() == 8) {
        const quint32 v = addr.toUInt(nullptr, 16); // host byte order of a little-endian kernel
        l.local = QStringLiteral("%1.%2.%3.%4:%5")
                      .arg(v & 0xff)
                      .arg((v >> 8) & 0xff)
                      .arg((v >> 16) & 0xff)
                      .arg(v >> 24)
                      .arg(port);
    } else {
        l.local = (l.wildcard ? QStringLiteral("[::]")
                              : QStringLiteral("[") + QString::fromLatin1(addr) + QStringLiteral("]"))
            + QStringLiteral(":") + port;
    }
    return l;
}

std::vector<Listener> listeningSockets()
{
    std::vector<Listener> out;
    for (const char* table : { "/proc/net/tcp", "/proc/net/tcp6" }) {
        QFile f(QString::fromLatin1(table));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const auto lines = f.readAll().split('\n');
        for (int i = 1; i < lines.size(); ++i) {
            const auto cols = lines[i].simplified().split(' ');
            if (cols.size() > 9 && cols[3] == "0A") // TCP_LISTEN
                out.push_back(parseLocal(cols[1], cols[9].toULongLong()));
        }
    }
    return out;
}

QSet<quint64> socketInodes(qint64 pid)
{
    QSet<quint64> inodes;
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    for (const auto& name : fds.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)) {
        const QString target = QFile::symLinkTarget(fds.filePath(name));
        const QString marker = QStringLiteral("socket:[");
        const auto at = target.indexOf(marker);
        if (at >= 0)
            inodes.insert(target.mid(at + marker.size()).chopped(1).toULongLong());
    }
    return inodes;
}

// The listening sockets held by `pids` right now.
std::vector<Listener> listenersOf(const std::vector<qint64>& pids)
{
    QSet<quint64> mine;
    for (auto pid : pids)
        mine.unite(socketInodes(pid));
    std::vector<Listener> out;
    for (const auto& l : listeningSockets())
        if (mine.contains(l.inode))
            out.push_back(l);
    return out;
}

QString describe(const std::vector<Listener>& ls)
{
    QStringList parts;
    for (const auto& l : ls)
        parts << l.local;
    return parts.join(QStringLiteral(", "));
}

bool hasStep(const QByteArray& out)
{
    for (const auto& e : parseEvents(out))
        if (std::holds_alternative<StepEvent>(e))
            return true;
    return false;
}

} // namespace

class TestRunnerRendezvous : public QObject {
    Q_OBJECT

private slots:
    void noSocketListensOnEveryInterface()
    {
        const int port = freeTcpPort();
        const QStringList args { QStringLiteral("--model"), QStringLiteral("tiny"),     QStringLiteral("--seq"),
                                 QStringLiteral("64"),      QStringLiteral("--warmup"), QStringLiteral("1"),
                                 QStringLiteral("--steps"), QStringLiteral("200") };
        // Rank 1 starts late, so rank 0 sits in the rendezvous, listening, while it is sampled.
        RankProcess rank0(args, rankEnvironment(0, 2, port));
        QVERIFY(rank0.process.waitForStarted());
        std::vector<qint64> pids { rank0.process.processId() };

        QElapsedTimer clock;
        clock.start();
        bool sawRendezvous = false;
        while (clock.elapsed() < 60000 && !sawRendezvous) {
            const auto ls = listenersOf(pids);
            for (const auto& l : ls)
                QVERIFY2(
                    !l.wildcard,
                    qPrintable(QStringLiteral("rank 0 listens on every interface while it waits: ") + describe(ls)));
            for (const auto& l : ls)
                sawRendezvous = sawRendezvous || l.local == QStringLiteral("127.0.0.1:%1").arg(port);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        QVERIFY2(sawRendezvous, "rank 0 never listened on 127.0.0.1:MASTER_PORT");

        RankProcess rank1(args, rankEnvironment(1, 2, port));
        QVERIFY(rank1.process.waitForStarted());
        pids.push_back(rank1.process.processId());
        bool training = false;
        int samples = 0;
        while (clock.elapsed() < 240000 && rank0.process.state() == QProcess::Running) {
            const bool stepSeen = hasStep(rank0.stdoutSoFar()) && hasStep(rank1.stdoutSoFar());
            const auto ls = listenersOf(pids);
            ++samples;
            for (const auto& l : ls)
                QVERIFY2(!l.wildcard, qPrintable(QStringLiteral("a rank listens on every interface: ") + describe(ls)));
            // Once both ranks train, the rendezvous is closed and Gloo's pairs are connected: nothing
            // of the run listens any more (sampled once more after the step was seen, to be sure the
            // sockets were read after it).
            if (training) {
                QVERIFY2(ls.empty(), qPrintable(QStringLiteral("still listening while training: ") + describe(ls)));
                break;
            }
            training = stepSeen;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        QVERIFY2(training,
                 qPrintable(QStringLiteral("the ranks never reached a step while sampled: ")
                            + QString::fromUtf8(rank0.stdoutSoFar().left(600))
                            + QString::fromUtf8(rank1.stdoutSoFar().left(600))));
        QVERIFY(samples > 1);
        const RankRun run0 = rank0.finish(240000);
        const RankRun run1 = rank1.finish(240000);
        QVERIFY2(run0.exitCode == 0, qPrintable(run0.log.right(2000)));
        QVERIFY2(run1.exitCode == 0, qPrintable(run1.log.right(2000)));
    }

    // Rank 0 serves the rendezvous on MASTER_ADDR; an address that is not this host's is a config
    // error naming it (192.0.2.1 is TEST-NET-1, RFC 5737: never assigned to a host).
    void rankZeroRefusesAnAddressThatIsNotItsHosts()
    {
        QProcessEnvironment env = rankEnvironment(0, 2, freeTcpPort());
        env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("192.0.2.1"));
        const RankRun run = runOnce({ QStringLiteral("--model"), QStringLiteral("tiny"), QStringLiteral("--seq"),
                                      QStringLiteral("16"), QStringLiteral("--timeout-s"), QStringLiteral("60") },
                                    env, 90000);
        const auto errors = eventsOf<ErrorEvent>(run);
        QVERIFY2(errors.size() == 1, qPrintable(run.log.right(2000)));
        QCOMPARE(errors.front().kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors.front().message).contains(QStringLiteral("MASTER_ADDR '192.0.2.1'")),
                 errors.front().message.c_str());
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestRunnerRendezvous)
#include "test_runner_rendezvous.moc"
