#include "pages/compare/prediction_job.hpp"

#include "shardwise/calibrate/stored_comparison.hpp"
#include "shardwise/store/database.hpp"

#include <QMetaObject>

#include <exception>

namespace shardwise::gui {

PredictionJob::PredictionJob(QObject* parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1); // requests run one after another; a superseded one only costs time
}

PredictionJob::~PredictionJob()
{
    ++m_generation; // what is still running is stale now
    m_pool.clear();
    m_pool.waitForDone();
}

void PredictionJob::request(const QString& databasePath)
{
    const quint64 generation = ++m_generation;
    if (m_running.fetch_add(1) == 0)
        emit busyChanged(true);
    m_pool.start([this, databasePath, generation] {
        PredictionSet predictions;
        QString error;
        // A request superseded before it started is not worth its fit.
        if (generation == m_generation.load()) {
            try {
                const store::Database db
                    = store::Database::open(databasePath.toStdString(), store::OpenOptions { .readOnly = true });
                predictions = toPredictionSet(calibrate::compareStoredRuns(db));
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            }
        }
        // Delivered on the GUI thread; the job object outlives the pool's tasks (see the destructor).
        QMetaObject::invokeMethod(
            this,
            [this, predictions, error, generation] {
                const bool last = m_running.fetch_sub(1) == 1;
                if (generation == m_generation.load()) {
                    if (error.isEmpty())
                        emit predictionsAvailable(predictions);
                    else
                        emit predictionsFailed(error);
                }
                if (last)
                    emit busyChanged(false);
            },
            Qt::QueuedConnection);
    });
}

} // namespace shardwise::gui
