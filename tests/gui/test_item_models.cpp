// Every item model of the GUI under QAbstractItemModelTester, filled from real planner output and
// real run records; plus the behaviour the pages rely on (recommendation row, check state, filters).
#include "gui_test_main.hpp"

#include "models/candidate_table_model.hpp"
#include "models/decision_step_model.hpp"
#include "models/run_filter_model.hpp"
#include "models/run_table_model.hpp"
#include "workspace/plan_adapter.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/presets.hpp"

#include <QAbstractItemModelTester>
#include <QSignalSpy>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

EstimateInput inputFor(const char* model, const char* gpu, int gpus, Interconnect link)
{
    EstimateInput in;
    in.model = resolveModel(model);
    in.gpu = resolveGpu(gpu);
    in.cluster.gpusPerNode = gpus;
    in.cluster.intraNode = link;
    return in;
}

PlanView planViewFor(const EstimateInput& in)
{
    const Plan plan = makePlan(in);
    return toPlanView(plan, in, runMatrix(plan, in));
}

RunRecord record(qint64 id, const QString& model, const QString& node, Strategy s, RunOutcome outcome, const QDate& day)
{
    RunRecord r;
    r.id = id;
    r.model = model;
    r.hardware = QStringLiteral("2 × cpu");
    r.node = node;
    r.strategy = s;
    r.outcome = outcome;
    r.started = QDateTime(day, QTime(12, 0), Qt::UTC);
    r.tokensPerS = outcome == RunOutcome::Completed ? 1000.0 * static_cast<double>(id) : 0.0;
    r.peakAllocatedGiB = 1.5;
    r.peakReservedGiB = 2.0;
    return r;
}

QList<RunRecord> sampleRuns()
{
    return { record(1, QStringLiteral("Tiny"), QStringLiteral("local"), Strategy::Zero0, RunOutcome::Completed,
                    QDate(2026, 11, 30)),
             record(2, QStringLiteral("Tiny"), QStringLiteral("local"), Strategy::Zero3, RunOutcome::OutOfMemory,
                    QDate(2026, 12, 1)),
             record(3, QStringLiteral("Qwen2.5 3B"), QStringLiteral("gpu-box"), Strategy::Fsdp2Reshard,
                    RunOutcome::Completed, QDate(2026, 12, 2)),
             record(4, QStringLiteral("Qwen2.5 3B"), QStringLiteral("gpu-box"), Strategy::Zero3, RunOutcome::Failed,
                    QDate(2026, 12, 2)) };
}

} // namespace

class TestItemModels : public QObject {
    Q_OBJECT

private slots:
    void candidateModelPassesModelTester()
    {
        CandidateTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(planViewFor(inputFor("qwen2.5-3b", "l4", 4, Interconnect::Pcie)));
        QCOMPARE(model.rowCount(), 9);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void candidateModelMarksTheRecommendation_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<bool>("nvlink");
        QTest::newRow("3b on 4 x L4 PCIe") << QStringLiteral("qwen2.5-3b") << QStringLiteral("l4") << 4 << false;
        QTest::newRow("3b on 1 x H200") << QStringLiteral("qwen2.5-3b") << QStringLiteral("h200") << 1 << true;
        QTest::newRow("7b on 8 x H100 NVLink")
            << QStringLiteral("qwen2.5-7b") << QStringLiteral("h100-80gb") << 8 << true;
        QTest::newRow("tiny on 2 x L4") << QStringLiteral("tiny") << QStringLiteral("l4") << 2 << false;
    }
    void candidateModelMarksTheRecommendation()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(bool, nvlink);
        const EstimateInput in = inputFor(model.toUtf8().constData(), gpu.toUtf8().constData(), gpus,
                                          nvlink ? Interconnect::NvLink : Interconnect::Pcie);
        const Plan plan = makePlan(in);
        CandidateTableModel candidates;
        QAbstractItemModelTester tester(&candidates, QAbstractItemModelTester::FailureReportingMode::QtTest);
        candidates.setPlan(toPlanView(plan, in, runMatrix(plan, in)));
        int recommendedRows = 0;
        for (int row = 0; row < candidates.rowCount(); ++row) {
            const bool recommended = candidates.index(row, 0).data(CandidateTableModel::RecommendedRole).toBool();
            const auto strategy = static_cast<Strategy>(candidates.index(row, CandidateTableModel::StrategyColumn)
                                                            .data(CandidateTableModel::RawValueRole)
                                                            .toInt());
            QCOMPARE(recommended, plan.recommendation.strategy && *plan.recommendation.strategy == strategy);
            recommendedRows += recommended ? 1 : 0;
            const Estimate& e = plan.candidate(strategy).estimate;
            QCOMPARE(
                candidates.index(row, CandidateTableModel::FitsColumn).data(CandidateTableModel::RawValueRole).toBool(),
                e.fits());
            QCOMPARE(candidates.index(row, CandidateTableModel::PeakColumn)
                         .data(CandidateTableModel::RawValueRole)
                         .toDouble(),
                     e.memory.peakBytes() / kGiB); // the peak every face shows
            QVERIFY(candidates.index(row, CandidateTableModel::PeakColumn)
                        .data()
                        .toString()
                        .contains(QStringLiteral("GiB")));
            QVERIFY(!candidates.index(row, CandidateTableModel::NcclColumn).data(Qt::ToolTipRole).toString().isEmpty());
        }
        QCOMPARE(recommendedRows, plan.recommendation.strategy ? 1 : 0);
    }

    void decisionStepModelShowsTheDecidingStep()
    {
        const EstimateInput in = inputFor("qwen2.5-3b", "l4", 4, Interconnect::Pcie);
        const Plan plan = makePlan(in);
        DecisionStepModel steps;
        QAbstractItemModelTester tester(&steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
        steps.setSteps(toPlanView(plan, in, runMatrix(plan, in)).steps);
        QCOMPARE(steps.rowCount(), 3);
        const int decided = static_cast<int>(plan.recommendation.step);
        for (int row = 0; row < 3; ++row) {
            const auto verdict
                = static_cast<StepVerdict>(steps.index(row, 0).data(DecisionStepModel::VerdictRole).toInt());
            if (row + 1 == decided)
                QCOMPARE(verdict, StepVerdict::Decided);
            else if (row + 1 < decided || decided == 0)
                QCOMPARE(verdict, StepVerdict::Passed);
            else
                QCOMPARE(verdict, StepVerdict::NotReached);
            QVERIFY(!steps.index(row, DecisionStepModel::ReasonColumn).data().toString().isEmpty());
        }
    }

    void runModelPassesModelTesterAndKeepsChecks()
    {
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy checked(&model, &RunTableModel::checkedRunsChanged);
        model.setRuns(sampleRuns());
        QVERIFY(model.setData(model.index(1, RunTableModel::IdColumn), Qt::Checked, Qt::CheckStateRole));
        model.setChecked(3, true);
        QCOMPARE(model.checkedRuns().size(), 2);
        QVERIFY(checked.count() >= 2);
        // Reloading keeps the checks of runs that are still there and forgets the others.
        QList<RunRecord> fewer = sampleRuns();
        fewer.removeAt(2);
        model.setRuns(fewer);
        QCOMPARE(model.checkedRuns().size(), 1);
        QCOMPARE(model.checkedRuns().front().id, qint64(2));
        model.checkAll(true);
        QCOMPARE(model.checkedRuns().size(), 3);
    }

    // Two ZeRO-3 runs at 12,589 and 20,509 tokens/s, fp32 master against pure bf16: the table says which
    // is which, with the sequence, micro-batch, world and backend beside them; the precision sorts.
    void runModelTellsSetupsApartByPrecisionSequenceAndMicroBatch()
    {
        RunRecord master;
        master.id = 1;
        master.strategy = Strategy::Zero3;
        master.precision = QStringLiteral("bf16-fp32-master");
        master.seqLen = 2048;
        master.microBatch = 1;
        master.world = 8;
        master.tokensPerS = 12589;
        RunRecord pure = master;
        pure.id = 2;
        pure.precision = QStringLiteral("bf16");
        pure.seqLen = 4096;
        pure.microBatch = 2;
        pure.tokensPerS = 20509;
        RunRecord cpu = pure;
        cpu.id = 3;
        cpu.onCpu = true;
        RunTableModel model;
        model.setRuns({ master, pure, cpu });
        const auto header = [&](int column) { return model.headerData(column, Qt::Horizontal).toString(); };
        QCOMPARE(header(RunTableModel::PrecisionColumn), QStringLiteral("Precision"));
        QCOMPARE(header(RunTableModel::SequenceColumn), QStringLiteral("Sequence"));
        QCOMPARE(header(RunTableModel::MicroBatchColumn), QStringLiteral("Micro-batch"));
        QCOMPARE(header(RunTableModel::WorldColumn), QStringLiteral("World"));
        QCOMPARE(header(RunTableModel::BackendColumn), QStringLiteral("Backend"));
        const auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(cell(0, RunTableModel::PrecisionColumn), QStringLiteral("bf16-fp32-master"));
        QCOMPARE(cell(1, RunTableModel::PrecisionColumn), QStringLiteral("bf16"));
        QCOMPARE(cell(2, RunTableModel::PrecisionColumn), QStringLiteral("fp32 (CPU)")); // what it computed in
        QCOMPARE(cell(0, RunTableModel::SequenceColumn), QLocale().toString(2048));
        QCOMPARE(cell(1, RunTableModel::SequenceColumn), QLocale().toString(4096));
        QCOMPARE(cell(0, RunTableModel::MicroBatchColumn), QStringLiteral("1"));
        QCOMPARE(cell(1, RunTableModel::MicroBatchColumn), QStringLiteral("2"));
        QCOMPARE(model.index(1, RunTableModel::SequenceColumn).data(RunTableModel::RawValueRole).toInt(), 4096);
        for (int column :
             { RunTableModel::PrecisionColumn, RunTableModel::SequenceColumn, RunTableModel::MicroBatchColumn })
            QVERIFY(!model.headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
        // The prediction columns still follow the record's own.
        QCOMPARE(header(RunTableModel::PresetsTokensColumn), QStringLiteral("Presets throughput"));
        QCOMPARE(header(RunTableModel::PredictedTokensColumn), QStringLiteral("Predicted throughput"));
    }

    void failedRunsShowTheirOutcome_data()
    {
        QTest::addColumn<int>("row");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<bool>("hasThroughput");
        QTest::newRow("completed") << 0 << QStringLiteral("completed") << true;
        QTest::newRow("oom") << 1 << QStringLiteral("out of memory") << false;
        QTest::newRow("failed") << 3 << QStringLiteral("failed") << false;
    }
    void failedRunsShowTheirOutcome()
    {
        QFETCH(int, row);
        QFETCH(QString, outcome);
        QFETCH(bool, hasThroughput);
        RunTableModel model;
        model.setRuns(sampleRuns());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(row, RunTableModel::OutcomeColumn).data().toString(), outcome);
        QCOMPARE(model.index(row, RunTableModel::TokensColumn).data().toString().contains(QStringLiteral("tokens/s")),
                 hasThroughput);
    }

    void filterModelSelectsRuns_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QDate>("from");
        QTest::addColumn<QDate>("to");
        QTest::addColumn<QList<qint64>>("ids");
        QTest::newRow("everything") << QString() << QString() << QString() << QDate() << QDate()
                                    << QList<qint64> { 1, 2, 3, 4 };
        QTest::newRow("by model") << QStringLiteral("Tiny") << QString() << QString() << QDate() << QDate()
                                  << QList<qint64> { 1, 2 };
        QTest::newRow("by strategy keeps failures")
            << QString() << QStringLiteral("zero3") << QString() << QDate() << QDate() << QList<qint64> { 2, 4 };
        QTest::newRow("by node") << QString() << QString() << QStringLiteral("gpu-box") << QDate() << QDate()
                                 << QList<qint64> { 3, 4 };
        QTest::newRow("by date") << QString() << QString() << QString() << QDate(2026, 12, 1) << QDate(2026, 12, 1)
                                 << QList<qint64> { 2 };
        QTest::newRow("open-ended date") << QString() << QString() << QString() << QDate(2026, 12, 2) << QDate()
                                         << QList<qint64> { 3, 4 };
    }
    void filterModelSelectsRuns()
    {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        QFETCH(QString, node);
        QFETCH(QDate, from);
        QFETCH(QDate, to);
        QFETCH(QList<qint64>, ids);
        RunTableModel runs;
        runs.setRuns(sampleRuns());
        RunFilterModel filter;
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&runs);
        filter.setModelFilter(model);
        filter.setStrategyFilter(strategy);
        filter.setNodeFilter(node);
        filter.setDateRange(from, to);
        filter.sort(RunTableModel::IdColumn, Qt::AscendingOrder);
        QList<qint64> shown;
        for (int row = 0; row < filter.rowCount(); ++row)
            shown << filter.index(row, 0).data(RunTableModel::RunIdRole).toLongLong();
        QCOMPARE(shown, ids);
    }

    void filterModelSelectsRunsByBackend()
    {
        QList<RunRecord> sample = sampleRuns();
        sample[1].backend = RunBackend::Torch;
        sample[3].backend = RunBackend::Torch;
        RunTableModel runs;
        runs.setRuns(sample);
        QCOMPARE(runs.index(1, RunTableModel::BackendColumn).data().toString(), QStringLiteral("torch"));
        QCOMPARE(runs.index(0, RunTableModel::BackendColumn).data().toString(), QStringLiteral("native"));
        QCOMPARE(runs.headerData(RunTableModel::BackendColumn, Qt::Horizontal).toString(), QStringLiteral("Backend"));
        RunFilterModel filter;
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&runs);
        filter.sort(RunTableModel::IdColumn, Qt::AscendingOrder);
        const auto shown = [&] {
            QList<qint64> ids;
            for (int row = 0; row < filter.rowCount(); ++row)
                ids << filter.index(row, 0).data(RunTableModel::RunIdRole).toLongLong();
            return ids;
        };
        filter.setBackendFilter(QStringLiteral("torch"));
        QCOMPARE(shown(), (QList<qint64> { sample[1].id, sample[3].id }));
        filter.setBackendFilter(QStringLiteral("native"));
        QCOMPARE(shown(), (QList<qint64> { sample[0].id, sample[2].id }));
        filter.setBackendFilter(QString());
        QCOMPARE(filter.rowCount(), 4);
    }

    void filterModelSortsNumbersAsNumbers()
    {
        RunTableModel runs;
        runs.setRuns(sampleRuns());
        RunFilterModel filter;
        filter.setSourceModel(&runs);
        filter.sort(RunTableModel::TokensColumn, Qt::DescendingOrder);
        QCOMPARE(filter.index(0, 0).data(RunTableModel::RunIdRole).toLongLong(), qint64(3));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestItemModels)
#include "test_item_models.moc"
