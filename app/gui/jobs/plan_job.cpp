#include "jobs/plan_job.hpp"

#include "workspace/plan_adapter.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"

#include <QMetaObject>

namespace shardwise::gui {

PlanJob::PlanJob(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<shardwise::gui::PlanView>();
}

PlanJob::~PlanJob()
{
    m_pool.waitForDone();
}

void PlanJob::request(const EstimateInput& input)
{
    const quint64 generation = ++m_generation;
    if (m_running.fetch_add(1) == 0)
        emit busyChanged(true);
    m_pool.start([this, input, generation] {
        PlanView view;
        QString error;
        try {
            const Plan plan = makePlan(input);
            view = toPlanView(plan, input, runMatrix(plan, input, DeviceKind::Cuda));
        } catch (const SpecError& e) {
            error = QString::fromUtf8(e.what());
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        // Delivered on the GUI thread; the job object outlives the pool's tasks (see the destructor).
        QMetaObject::invokeMethod(
            this,
            [this, view, error, generation] {
                const bool last = m_running.fetch_sub(1) == 1;
                if (generation == m_generation.load()) {
                    if (error.isEmpty())
                        emit planAvailable(view);
                    else
                        emit planFailed(error);
                }
                if (last)
                    emit busyChanged(false);
            },
            Qt::QueuedConnection);
    });
}

} // namespace shardwise::gui
