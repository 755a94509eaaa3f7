// The runners as srun starts them: one task per rank with Slurm's variables and none of torchrun's.
// Real shardwise-runner (and, where built, shardwise-torch-runner) processes on CPU, two ranks meeting
// at the head the node list names, on the port the job id gives.
#include "rank_launch.hpp"

#include "shardwise/spec/slurm.hpp"

#include <QRandomGenerator>
#include <QtTest>

#include <memory>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

const QStringList kTorchrunVariables { QStringLiteral("RANK"),
                                       QStringLiteral("WORLD_SIZE"),
                                       QStringLiteral("LOCAL_RANK"),
                                       QStringLiteral("LOCAL_WORLD_SIZE"),
                                       QStringLiteral("MASTER_ADDR"),
                                       QStringLiteral("MASTER_PORT"),
                                       QStringLiteral("TORCHELASTIC_RUN_ID"),
                                       QStringLiteral("SHARDWISE_LAUNCHER") };

bool portFree(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return free;
}

// A job id whose rendezvous port (15000 + id mod 20000) is free on this host now.
long long jobIdWithAFreePort()
{
    for (long long id = 1000 + QRandomGenerator::global()->bounded(18000); id < 20000; ++id)
        if (portFree(slurmRendezvousPort(id)))
            return id + 20000LL * 4711; // a realistic, large job id with the same port
    return -1;
}

QProcessEnvironment srunTask(int procId, int tasks, long long jobId, const QString& tasksPerNode)
{
    auto env = QProcessEnvironment::systemEnvironment();
    for (const QString& v : kTorchrunVariables)
        env.remove(v);
    env.insert(QStringLiteral("SLURM_PROCID"), QString::number(procId));
    env.insert(QStringLiteral("SLURM_NTASKS"), QString::number(tasks));
    env.insert(QStringLiteral("SLURM_LOCALID"), QString::number(procId));
    env.insert(QStringLiteral("SLURM_TASKS_PER_NODE"), tasksPerNode);
    env.insert(QStringLiteral("SLURM_JOB_NODELIST"), QStringLiteral("localhost,gpu[002-004]"));
    env.insert(QStringLiteral("SLURM_JOB_ID"), QString::number(jobId));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    return env;
}

const QStringList kRun { QStringLiteral("--model"),  QStringLiteral("tiny"),    QStringLiteral("--seq"),
                         QStringLiteral("16"),       QStringLiteral("--steps"), QStringLiteral("2"),
                         QStringLiteral("--warmup"), QStringLiteral("1") };

} // namespace

class TestRunnerSlurm : public QObject {
    Q_OBJECT

    // Two srun tasks of `program` train together: each knows its rank from SLURM_PROCID, the world
    // from SLURM_NTASKS, and both say srun launched them.
    void twoTasksTrainTogether(const QString& program, const QString& strategy)
    {
        const long long jobId = jobIdWithAFreePort();
        QVERIFY(jobId > 0);
        std::vector<std::unique_ptr<RankProcess>> ranks;
        for (int r = 0; r < 2; ++r) {
            const QStringList args = kRun + QStringList { QStringLiteral("--strategy"), strategy };
            ranks.push_back(std::make_unique<RankProcess>(args, srunTask(r, 2, jobId, QStringLiteral("2")), program));
        }
        for (int r = 0; r < 2; ++r) {
            const RankRun run = ranks[static_cast<std::size_t>(r)]->finish(300000);
            QVERIFY2(run.exitCode == 0, qPrintable(run.log));
            const auto starts = eventsOf<StartEvent>(run);
            QCOMPARE(starts.size(), std::size_t { 1 });
            QCOMPARE(starts[0].rank, r);
            QCOMPARE(starts[0].world, 2);
            QCOMPARE(starts[0].launcher, std::string("srun"));
            QCOMPARE(eventsOf<SummaryEvent>(run).size(), std::size_t { 1 });
        }
    }

private slots:
    void nativeRunnerTrainsUnderSrunVariables()
    {
        twoTasksTrainTogether(QStringLiteral(SHARDWISE_RUNNER_PATH), QStringLiteral("fsdp2_reshard"));
    }

    void torchRunnerTrainsUnderSrunVariables()
    {
#ifdef SHARDWISE_TORCH_RUNNER_PATH
        // DDP: Debian's PyTorch predates fully_shard.
        twoTasksTrainTogether(QStringLiteral(SHARDWISE_TORCH_RUNNER_PATH), QStringLiteral("zero0"));
#else
        QSKIP("shardwise-torch-runner is not built here (no python3 with torch at configure time)");
#endif
    }

    // torchrun's contract wins where it is set: a torchrun started by srun keeps its own ranks.
    void torchrunVariablesWinOverSlurms()
    {
        auto env = rankEnvironment(0, 1, freeTcpPort());
        env.insert(QStringLiteral("SLURM_PROCID"), QStringLiteral("5"));
        env.insert(QStringLiteral("SLURM_NTASKS"), QStringLiteral("8"));
        env.insert(QStringLiteral("SLURM_LOCALID"), QStringLiteral("5"));
        env.insert(QStringLiteral("SLURM_TASKS_PER_NODE"), QStringLiteral("8"));
        env.insert(QStringLiteral("SLURM_JOB_NODELIST"), QStringLiteral("gpu[001-008]"));
        env.insert(QStringLiteral("SLURM_JOB_ID"), QStringLiteral("77"));
        const RankRun run = runOnce(kRun, env);
        QVERIFY2(run.exitCode == 0, qPrintable(run.log));
        const auto starts = eventsOf<StartEvent>(run);
        QCOMPARE(starts.size(), std::size_t { 1 });
        QCOMPARE(starts[0].rank, 0);
        QCOMPARE(starts[0].world, 1);
    }

    // Nodes running different numbers of tasks cannot share one LOCAL_WORLD_SIZE: a config error that
    // names the variable, before any rendezvous.
    void unevenTasksPerNodeIsAConfigErrorNamingTheVariable()
    {
        QStringList programs { QStringLiteral(SHARDWISE_RUNNER_PATH) };
#ifdef SHARDWISE_TORCH_RUNNER_PATH
        programs << QStringLiteral(SHARDWISE_TORCH_RUNNER_PATH);
#endif
        for (const QString& program : programs) {
            RankProcess rank(kRun, srunTask(0, 3, 12, QStringLiteral("2,1")), program);
            const RankRun run = rank.finish(60000);
            QVERIFY2(run.exitCode == 2, qPrintable(program + QStringLiteral(": ") + run.log));
            const auto errors = eventsOf<ErrorEvent>(run);
            QCOMPARE(errors.size(), std::size_t { 1 });
            QCOMPARE(errors[0].kind, ErrorKind::Config);
            QVERIFY2(errors[0].message.find("SLURM_TASKS_PER_NODE") != std::string::npos, errors[0].message.c_str());
            QVERIFY2(errors[0].message.find("2,1") != std::string::npos, errors[0].message.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunnerSlurm)
#include "test_runner_slurm.moc"
