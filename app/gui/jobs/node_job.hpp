#pragma once
// Talks to nodes off the GUI thread through core's node management (session/node_management.hpp):
// tests an SSH connection, discovers a node's GPU and software facts (locally through /bin/sh,
// remotely over one SSH command). A host key that is not yet
// trusted comes back as hostKeyUntrusted with the key the server presented, so the page can show
// its fingerprint and let the user decide; a changed key is reported the same way and never
// accepted silently. Every request per node gets a generation number; results of a superseded
// request are dropped. Preparing a node (upload the runner's sources, build them there, cached by
// their hash) reports its progress as it goes and stops on cancel, killing the remote build.

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/store/nodes.hpp"

#include <QHash>
#include <QMetaType>
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

namespace shardwise::gui {

class NodeJob : public QObject {
    Q_OBJECT

public:
    explicit NodeJob(QObject* parent = nullptr);
    ~NodeJob() override; // cancels and waits for the requests still running

    // Known-hosts files and time limits used for SSH nodes (KnownHostsFiles::standard() unless set).
    void setSshOptions(const dispatch::SshOptions& options) { m_options = options; }
    const dispatch::SshOptions& sshOptions() const { return m_options; }

    void testConnection(const store::Node& node);
    void discover(const store::Node& node);
    // Builds the runner on an SSH node. `sources` runs on the worker thread (it reads and archives
    // the source tree) and throws std::exception with a message when the sources are missing.
    void prepare(const store::Node& node, std::function<dispatch::RemoteBundle()> sources,
                 const dispatch::PreparationOptions& options = {});
    bool busy() const { return m_running.load() > 0; }

public slots:
    void cancel();

signals:
    void connectionTested(qint64 nodeId, const QString& summary);
    void factsAvailable(qint64 nodeId, const shardwise::dispatch::NodeFacts& facts);
    // fraction of the whole preparation, 0..1; phase as preparationPhaseName() says it
    void preparationProgress(qint64 nodeId, double fraction, const QString& phase, const QString& message);
    void prepared(qint64 nodeId, const shardwise::dispatch::PreparedRunner& runner);
    void hostKeyUntrusted(qint64 nodeId, const shardwise::dispatch::HostKey& key, bool changed, const QString& message);
    void nodeFailed(qint64 nodeId, const QString& message);
    void busyChanged(bool busy);

private:
    enum class Work { Test, Discover, Prepare };
    struct PrepareRequest {
        std::function<dispatch::RemoteBundle()> sources;
        dispatch::PreparationOptions options;
    };
    void start(const store::Node& node, Work work, PrepareRequest prepare = {});

    dispatch::SshOptions m_options;
    QThreadPool m_pool;                  // own pool: the destructor waits only for this job's requests
    QHash<qint64, quint64> m_generation; // GUI thread only
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    std::atomic<int> m_running { 0 };
};

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::dispatch::NodeFacts)
Q_DECLARE_METATYPE(shardwise::dispatch::HostKey)
Q_DECLARE_METATYPE(shardwise::dispatch::PreparedRunner)
