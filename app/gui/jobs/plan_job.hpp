#pragma once
// Plans off the GUI thread. Every request gets a generation number; a result that arrives after a
// newer request was made is stale and dropped, so fast typing in the form never shows an old plan.

#include "workspace/plan_view.hpp"

#include "shardwise/estimate/estimate.hpp"

#include <QObject>
#include <QThreadPool>

#include <atomic>

namespace shardwise::gui {

class PlanJob : public QObject {
    Q_OBJECT

public:
    explicit PlanJob(QObject* parent = nullptr);
    ~PlanJob() override;

    // Starts planning `input`; earlier requests still running are superseded.
    void request(const EstimateInput& input);
    bool busy() const { return m_running.load() > 0; }

signals:
    void planAvailable(const shardwise::gui::PlanView& plan);
    void planFailed(const QString& message);
    void busyChanged(bool busy);

private:
    QThreadPool m_pool; // own pool: the destructor waits only for this job's tasks
    std::atomic<quint64> m_generation { 0 };
    std::atomic<int> m_running { 0 };
};

} // namespace shardwise::gui
