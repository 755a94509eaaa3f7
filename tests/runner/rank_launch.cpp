#include "rank_launch.hpp"

#include "shardwise/dispatch/local_launch.hpp"

#include <QtTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int freeTcpPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

QProcessEnvironment rankEnvironment(int rank, int world, int port)
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("RANK"), QString::number(rank));
    env.insert(QStringLiteral("WORLD_SIZE"), QString::number(world));
    env.insert(QStringLiteral("LOCAL_RANK"), QString::number(rank));
    env.insert(QStringLiteral("LOCAL_WORLD_SIZE"), QString::number(world));
    env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("127.0.0.1"));
    env.insert(QStringLiteral("MASTER_PORT"), QString::number(port));
    // Two cores in CI: one intra-op thread per rank keeps four ranks from thrashing.
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    return env;
}

namespace {

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

RankProcess::RankProcess(const QStringList& args, const QProcessEnvironment& env, const QString& program)
{
    // Output goes to files, not pipes: a rank blocked on a full pipe would stall its peers.
    process.setProcessEnvironment(env);
    process.setStandardOutputFile(dir.filePath(QStringLiteral("stdout")));
    process.setStandardErrorFile(dir.filePath(QStringLiteral("stderr")));
    process.start(program.isEmpty() ? QStringLiteral(SHARDWISE_RUNNER_PATH) : program, args);
}

QByteArray RankProcess::stdoutSoFar() const
{
    return readFile(dir.filePath(QStringLiteral("stdout")));
}

RankRun RankProcess::finish(int timeoutMs)
{
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    RankRun run;
    run.crashed = process.exitStatus() != QProcess::NormalExit;
    run.exitCode = run.crashed ? -1 : process.exitCode();
    run.log = QString::fromUtf8(readFile(dir.filePath(QStringLiteral("stderr"))));
    run.out = stdoutSoFar();
    run.events = parseEvents(run.out);
    return run;
}

std::vector<shardwise::protocol::Event> parseEvents(const QByteArray& out)
{
    std::vector<shardwise::protocol::Event> events;
    for (const auto& line : out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        if (auto e = shardwise::protocol::tryParseEvent(std::string_view(line.constData(), line.size())))
            events.push_back(std::move(*e));
    }
    return events;
}

std::vector<RankRun> runRanks(int world, const QStringList& args, int timeoutMs,
                              const std::map<std::string, std::string>& env)
{
    shardwise::dispatch::LocalLaunch launch;
    launch.runner = SHARDWISE_RUNNER_PATH;
    for (const auto& a : args)
        launch.args.push_back(a.toStdString());
    launch.ranks = world;
    // Two cores in CI: one intra-op thread per rank keeps four ranks from thrashing.
    launch.env["OMP_NUM_THREADS"] = "1";
    for (const auto& [name, value] : env)
        launch.env[name] = value;
    launch.timeout = std::chrono::seconds(timeoutMs / 1000);
    // The rank logs go to a folder removed on return (their tails are in the result): no test leaves
    // a shardwise-run-* folder in the temporary directory.
    QTemporaryDir logs;
    launch.logDir = logs.path().toStdString();
    const auto result = shardwise::dispatch::launchLocal(launch);
    std::vector<RankRun> runs;
    for (const auto& r : result.ranks) {
        RankRun run;
        run.exitCode = r.exitCode;
        run.crashed = r.signal != 0;
        run.events = r.events;
        run.log = QString::fromStdString(r.logTail);
        runs.push_back(std::move(run));
    }
    return runs;
}

RankRun runOnce(const QStringList& args, const QProcessEnvironment& env, int timeoutMs)
{
    RankProcess p(args, env);
    return p.finish(timeoutMs);
}
