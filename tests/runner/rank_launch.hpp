#pragma once
// Starts runner ranks as real local processes, torchrun-style, and collects their protocol events.
// Multi-rank runs go through dispatch::launchLocal; RankProcess starts one rank directly for tests
// that need its pid (killing it) or an environment the launcher would not produce.

#include "shardwise/protocol/events.hpp"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTemporaryDir>

#include <map>
#include <memory>
#include <string>
#include <vector>

struct RankRun {
    int exitCode = -1;
    bool crashed = false;
    std::vector<shardwise::protocol::Event> events;
    QString log;    // stderr
    QByteArray out; // stdout as written
};

int freeTcpPort();

// The torchrun variables for rank `rank` of `world` on this host.
QProcessEnvironment rankEnvironment(int rank, int world, int port);

// Runs `world` ranks through Shardwise's own launcher (dispatch::launchLocal) to completion (or until
// `timeoutMs`), returning one RankRun per rank; `env` adds to (or overrides) the ranks' environment.
std::vector<RankRun> runRanks(int world, const QStringList& args, int timeoutMs = 300000,
                              const std::map<std::string, std::string>& env = {});

// Runs one process with exactly `env` and returns its outcome.
RankRun runOnce(const QStringList& args, const QProcessEnvironment& env, int timeoutMs = 60000);

// One running rank whose stdout and stderr go to files in a private temporary directory.
class RankProcess {
public:
    // `program`: shardwise-runner when empty.
    RankProcess(const QStringList& args, const QProcessEnvironment& env, const QString& program = {});
    QByteArray stdoutSoFar() const;
    RankRun finish(int timeoutMs);
    QProcess process;

private:
    QTemporaryDir dir;
};

std::vector<shardwise::protocol::Event> parseEvents(const QByteArray& out);

template <typename E> std::vector<E> eventsOf(const RankRun& run)
{
    std::vector<E> out;
    for (const auto& e : run.events)
        if (const auto* p = std::get_if<E>(&e))
            out.push_back(*p);
    return out;
}
