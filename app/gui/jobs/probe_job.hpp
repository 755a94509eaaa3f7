#pragma once
// Probes a node's hardware off the GUI thread through core/session (the launch path runs use: rank
// processes on this machine, or detached ranks on an SSH node). The measurement comes back to the
// GUI thread, which stores it (the store belongs to that thread). One probe at a time; cancel stops
// the ranks (SIGTERM, then SIGKILL) wherever they run.

#include "shardwise/session/probe_session.hpp"
#include "shardwise/store/nodes.hpp"

#include <QMetaType>
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace shardwise::gui {

class ProbeJob : public QObject {
    Q_OBJECT

public:
    explicit ProbeJob(QObject* parent = nullptr);
    ~ProbeJob() override; // cancels and waits for the probe still running

    void setSshOptions(const dispatch::SshOptions& options) { m_options = options; }
    // The runner for this machine's probes (default: dispatch::locateRunner()).
    void setLocalRunner(const std::filesystem::path& runner) { m_localRunner = runner; }
    // The runner's --probe-max-bytes (its own default when unset).
    void setMaxBytes(std::optional<std::int64_t> bytes) { m_maxBytes = bytes; }

    // What a probe of `node` runs: the node's GPUs when its facts list some (one rank each), else
    // one CPU rank.
    session::ProbeRequest requestFor(const store::Node& node) const;

    // What a probe of the network between `nodes` runs: every GPU of each node when all of them list
    // GPUs, else one CPU rank each; request.node is the network's name ("a+b").
    session::ProbeRequest networkRequestFor(const std::vector<store::Node>& nodes) const;

    // False when a probe is already running.
    bool probe(const store::Node& node);
    // The network between SSH nodes (session::probeNetwork), reported as a probe of the first node
    // whose request names the network. False when a probe is running or a node is not an SSH node.
    bool probeNetwork(const std::vector<store::Node>& nodes);
    bool busy() const { return m_nodeId != 0; }
    qint64 nodeId() const { return m_nodeId; }

public slots:
    void cancel();

signals:
    void progress(qint64 nodeId, const QString& line); // a rank's log line, a few a second at most
    // Measured (or failed); request is what ran, so the receiver can store it as requested.
    void finished(qint64 nodeId, const shardwise::session::ProbeRequest& request,
                  const shardwise::session::ProbeSessionResult& result);
    void busyChanged(bool busy);

private:
    using Measure = std::function<session::ProbeSessionResult(
        const session::ProbeRequest&, const session::ProbeCallbacks&, const std::atomic<bool>* cancel)>;
    // Runs `measure` on the pool and reports it as `nodeId`'s probe; SSH failures become Unreachable.
    void start(qint64 nodeId, const session::ProbeRequest& request, Measure measure);

    dispatch::SshOptions m_options;
    std::optional<std::filesystem::path> m_localRunner;
    std::optional<std::int64_t> m_maxBytes;
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    qint64 m_nodeId = 0; // the node being probed, 0 when none (GUI thread only)
};

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::session::ProbeRequest)
Q_DECLARE_METATYPE(shardwise::session::ProbeSessionResult)
