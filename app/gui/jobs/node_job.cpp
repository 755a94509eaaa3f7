#include "jobs/node_job.hpp"

#include "shardwise/session/node_management.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

namespace shardwise::gui {

NodeJob::NodeJob(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<shardwise::dispatch::NodeFacts>();
    qRegisterMetaType<shardwise::dispatch::HostKey>();
    qRegisterMetaType<shardwise::dispatch::PreparedRunner>();
}

NodeJob::~NodeJob()
{
    m_cancel->store(true);
    m_pool.waitForDone();
}

void NodeJob::cancel()
{
    // A fresh flag for later requests; the running ones keep (and see) the old one.
    m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
}

void NodeJob::testConnection(const store::Node& node)
{
    start(node, Work::Test);
}

void NodeJob::discover(const store::Node& node)
{
    start(node, Work::Discover);
}

void NodeJob::prepare(const store::Node& node, std::function<dispatch::RemoteBundle()> sources,
                      const dispatch::PreparationOptions& options)
{
    start(node, Work::Prepare, { std::move(sources), options });
}

void NodeJob::start(const store::Node& node, Work work, PrepareRequest prepare)
{
    const qint64 nodeId = node.id;
    const quint64 generation = ++m_generation[nodeId];
    if (m_running.fetch_add(1) == 0)
        emit busyChanged(true);
    const dispatch::SshOptions options = m_options;
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancel;

    m_pool.start([this, node, work, nodeId, generation, options, cancel, prepare] {
        // Delivered on the GUI thread; results of a request superseded for the same node are dropped.
        auto deliver = [this, nodeId, generation](auto&& emitter) {
            QMetaObject::invokeMethod(
                this,
                [this, nodeId, generation, emitter] {
                    const bool last = m_running.fetch_sub(1) == 1;
                    if (m_generation.value(nodeId) == generation)
                        emitter();
                    if (last)
                        emit busyChanged(false);
                },
                Qt::QueuedConnection);
        };
        try {
            if (node.kind == store::NodeKind::Local) {
                if (work == Work::Test) {
                    deliver([this, nodeId] { emit connectionTested(nodeId, tr("This machine needs no connection.")); });
                    return;
                }
                const dispatch::NodeFacts facts = session::discoverNodeFacts(node, options);
                deliver([this, nodeId, facts] { emit factsAvailable(nodeId, facts); });
                return;
            }
            if (work == Work::Prepare && node.kind != store::NodeKind::Ssh) {
                deliver([this, nodeId] {
                    emit nodeFailed(
                        nodeId,
                        tr("This machine runs the runner installed beside Shardwise; only SSH nodes are prepared."));
                });
                return;
            }
            if (work == Work::Test) {
                const session::ConnectionTest test = session::testNodeConnection(node, options, cancel.get());
                const QString user = QString::fromStdString(test.user);
                const QString summary = test.commandSucceeded
                    ? tr("Connected as %1 in %2 ms; the node runs %3.")
                          .arg(user)
                          .arg(qRound64(test.connectMs))
                          .arg(QString::fromStdString(test.system))
                    : tr("Connected as %1 in %2 ms, but a test command ended with %3.")
                          .arg(user)
                          .arg(qRound64(test.connectMs))
                          .arg(QString::fromStdString(test.system));
                deliver([this, nodeId, summary] { emit connectionTested(nodeId, summary); });
                return;
            }
            if (work == Work::Prepare) {
                const dispatch::RemoteBundle bundle = prepare.sources();
                QElapsedTimer sinceReport;
                sinceReport.start();
                auto onProgress = [&](const dispatch::PreparationProgress& p) {
                    // A build prints faster than anyone reads; five updates a second keep the bar live.
                    const bool boundary = p.phase == dispatch::PreparationPhase::Done || p.fraction == 0;
                    if (!boundary && sinceReport.elapsed() < 200)
                        return;
                    sinceReport.restart();
                    const double fraction = p.fraction;
                    const QString phase
                        = QString::fromUtf8(std::string(dispatch::preparationPhaseName(p.phase)).c_str());
                    const QString message = QString::fromStdString(p.message);
                    QMetaObject::invokeMethod(
                        this,
                        [this, nodeId, generation, fraction, phase, message] {
                            if (m_generation.value(nodeId) == generation)
                                emit preparationProgress(nodeId, fraction, phase, message);
                        },
                        Qt::QueuedConnection);
                };
                const dispatch::PreparedRunner runner
                    = session::prepareStoredNode(node, bundle, options, prepare.options, onProgress, cancel.get());
                deliver([this, nodeId, runner] { emit prepared(nodeId, runner); });
                return;
            }
            const dispatch::NodeFacts facts = session::discoverNodeFacts(node, options, cancel.get());
            deliver([this, nodeId, facts] { emit factsAvailable(nodeId, facts); });
        } catch (const dispatch::SshError& e) {
            const QString message = QString::fromUtf8(e.what());
            const bool keyProblem = e.failure() == dispatch::SshFailure::HostKeyUnknown
                || e.failure() == dispatch::SshFailure::HostKeyChanged;
            if (keyProblem && e.hostKey()) {
                const dispatch::HostKey key = *e.hostKey();
                const bool changed = e.failure() == dispatch::SshFailure::HostKeyChanged;
                deliver(
                    [this, nodeId, key, changed, message] { emit hostKeyUntrusted(nodeId, key, changed, message); });
            } else {
                deliver([this, nodeId, message] { emit nodeFailed(nodeId, message); });
            }
        } catch (const std::exception& e) {
            const QString message = QString::fromUtf8(e.what());
            deliver([this, nodeId, message] { emit nodeFailed(nodeId, message); });
        }
    });
}

} // namespace shardwise::gui
