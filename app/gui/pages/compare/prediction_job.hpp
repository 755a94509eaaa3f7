#pragma once
// Calibrates from the run store and predicts every finished run, off the GUI thread: fitting the
// coefficients takes a few hundred estimates per stored run, too long to block the page. Each
// request opens its own read-only connection (a store connection belongs to one thread) and gets a
// generation number; a result that arrives after a newer request is stale and dropped.

#include "models/run_prediction.hpp"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>

namespace shardwise::gui {

class PredictionJob : public QObject {
    Q_OBJECT

public:
    explicit PredictionJob(QObject* parent = nullptr);
    ~PredictionJob() override;

    // Starts comparing the runs of the store at `databasePath`; earlier requests are superseded.
    void request(const QString& databasePath);
    bool busy() const { return m_running.load() > 0; }

signals:
    void predictionsAvailable(const shardwise::gui::PredictionSet& predictions);
    void predictionsFailed(const QString& message);
    void busyChanged(bool busy);

private:
    QThreadPool m_pool; // own pool: the destructor waits only for this job's tasks
    std::atomic<quint64> m_generation { 0 };
    std::atomic<int> m_running { 0 };
};

} // namespace shardwise::gui
