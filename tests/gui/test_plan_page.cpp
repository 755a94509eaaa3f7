// The Plan page driven like a user: fill the form, wait for the background planner, read the
// recommendation and compare it with what core/plan decides for the same input.
#include "gui_test_main.hpp"

#include "jobs/run_job.hpp"
#include "models/candidate_table_model.hpp"
#include "models/decision_step_model.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/plan_input.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

bool waitForPlan(PlanPage& page)
{
    QSignalSpy updated(&page, &PlanPage::planUpdated);
    return updated.wait(10000);
}

const CandidateView* shownCandidate(const PlanPage& page, Strategy strategy)
{
    for (const CandidateView& c : page.currentPlan().candidates)
        if (c.strategy == strategy)
            return &c;
    return nullptr;
}

// The Plan form's state as a build before the host RAM field saved it.
QJsonObject formWithoutHostRam()
{
    return QJsonObject { { QStringLiteral("model"), QStringLiteral("qwen2.5-14b") },
                         { QStringLiteral("gpu"), QStringLiteral("h200") },
                         { QStringLiteral("gpus_per_node"), 1 },
                         { QStringLiteral("nodes"), 1 },
                         { QStringLiteral("interconnect"), QStringLiteral("nvlink") },
                         { QStringLiteral("precision"), QStringLiteral("bf16") },
                         { QStringLiteral("micro_batch"), 1 },
                         { QStringLiteral("seq_len"), 1024 },
                         { QStringLiteral("expandable_segments"), false },
                         { QStringLiteral("activation_checkpointing"), false } };
}

// A small model at a short sequence on one H200: the host issuing every kernel sets the pace, which
// CUDA graphs take away.
QJsonObject smallModelShortSequence(bool cudaGraphs)
{
    QJsonObject s = formWithoutHostRam();
    s[QStringLiteral("model")] = QStringLiteral("qwen2.5-0.5b");
    s[QStringLiteral("seq_len")] = 1024;
    s[QStringLiteral("cuda_graphs")] = cudaGraphs;
    return s;
}

} // namespace

class TestPlanPage : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("plan.sqlite")), &error), qPrintable(error));
    }

    void init() { QSettings().clear(); }

    void startsWithTheExamplePlan()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        const QList<ExamplePlan> examples = Workspace::examplePlans();
        QVERIFY(!examples.isEmpty());
        QCOMPARE(page.form()->state().value(QStringLiteral("model")).toString(),
                 examples.front().form.value(QStringLiteral("model")).toString());
        QCOMPARE(page.candidateModel()->rowCount(), 9);
        QVERIFY(page.currentPlan().hasRecommendation);
    }

    void formInputGivesCoresRecommendation_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<QString>("interconnect");
        QTest::addColumn<int>("seqLen");
        QTest::newRow("3b, 4 x L4, PCIe")
            << QStringLiteral("qwen2.5-3b") << QStringLiteral("l4") << 4 << QStringLiteral("pcie") << 2048;
        QTest::newRow("3b, 1 x H200") << QStringLiteral("qwen2.5-3b") << QStringLiteral("h200") << 1
                                      << QStringLiteral("nvlink") << 2048;
        QTest::newRow("7b, 8 x H100, NVLink")
            << QStringLiteral("qwen2.5-7b") << QStringLiteral("h100-80gb") << 8 << QStringLiteral("nvlink") << 4096;
        QTest::newRow("70b, 8 x A100 40GB")
            << QStringLiteral("llama-3.1-70b") << QStringLiteral("a100-40gb") << 8 << QStringLiteral("nvlink") << 2048;
    }
    void formInputGivesCoresRecommendation()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(int, gpusPerNode);
        QFETCH(QString, interconnect);
        QFETCH(int, seqLen);
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        // From another plan than the one the page opens on (7B on 8 x H100), so each row changes it.
        page.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
        QVERIFY(waitForPlan(page));

        // Drive the widgets themselves, as a user would.
        auto* modelCombo = page.findChild<QComboBox*>(QStringLiteral("modelCombo"));
        auto* gpuCombo = page.findChild<QComboBox*>(QStringLiteral("gpuCombo"));
        auto* gpus = page.findChild<QSpinBox*>(QStringLiteral("gpusPerNodeSpin"));
        auto* link = page.findChild<QComboBox*>(QStringLiteral("interconnectCombo"));
        auto* seq = page.findChild<QSpinBox*>(QStringLiteral("seqLenSpin"));
        QVERIFY(modelCombo && gpuCombo && gpus && link && seq);
        modelCombo->setCurrentIndex(modelCombo->findData(model));
        gpuCombo->setCurrentIndex(gpuCombo->findData(gpu));
        gpus->setValue(gpusPerNode);
        link->setCurrentIndex(link->findData(interconnect));
        seq->setValue(seqLen);
        QVERIFY(waitForPlan(page));

        EstimateInput in;
        in.model = resolveModel(model.toStdString());
        in.gpu = resolveGpu(gpu.toStdString());
        in.cluster.gpusPerNode = gpusPerNode;
        in.cluster.intraNode = parseInterconnect(interconnect.toStdString(), "interconnect");
        in.training.seqLen = seqLen;
        in.training.microBatch = page.form()->state().value(QStringLiteral("micro_batch")).toInt();
        in.training.precision
            = parsePrecision(page.form()->state().value(QStringLiteral("precision")).toString().toStdString(), "p");
        in.training.expandableSegments = page.form()->state().value(QStringLiteral("expandable_segments")).toBool();
        const Plan expected = makePlan(in);

        const PlanView& shown = page.currentPlan();
        QCOMPARE(shown.hasRecommendation, expected.recommendation.strategy.has_value());
        if (expected.recommendation.strategy) {
            QCOMPARE(shown.recommendation, *expected.recommendation.strategy);
            const QString label
                = QString::fromUtf8(traits(*expected.recommendation.strategy).label.data(),
                                    static_cast<qsizetype>(traits(*expected.recommendation.strategy).label.size()));
            QVERIFY2(page.recommendationText().contains(label), qPrintable(page.recommendationText()));
        }
        // The deciding step is the one core/plan names, with its reasons.
        const int decided = static_cast<int>(expected.recommendation.step);
        for (int row = 0; row < page.stepModel()->rowCount(); ++row) {
            const auto verdict = static_cast<StepVerdict>(
                page.stepModel()->index(row, 0).data(DecisionStepModel::VerdictRole).toInt());
            QCOMPARE(verdict == StepVerdict::Decided, row + 1 == decided);
        }
        QCOMPARE(page.candidateModel()->rowCount(), 9);
        auto* chart = page.findChild<QChartView*>(QStringLiteral("memoryChart"));
        // Stacked bars, the capacity line, and a mark on the recommended candidate where there is one.
        QVERIFY(chart);
        QStringList series;
        for (const QAbstractSeries* s : chart->chart()->series())
            series << s->objectName();
        QVERIFY2(
            series.contains(QStringLiteral("peakPartsSeries")) && series.contains(QStringLiteral("usableCapacityLine"))
                && series.contains(QStringLiteral("recommendedMark")) == expected.recommendation.strategy.has_value(),
            qPrintable(series.join(QLatin1Char(' '))));
    }

    void modelFileWithABadFieldIsRefusedByName()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // Everything a Llama config needs except the number of attention heads.
        file.write(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
            "num_hidden_layers": 32, "vocab_size": 128256})");
        file.close();
        PlanForm form;
        QString error;
        QVERIFY(!form.addModelFile(path, &error));
        QVERIFY2(error.contains(QStringLiteral("num_attention_heads")), qPrintable(error));
    }

    void huggingFaceConfigIsPlanned()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // Qwen2.5-0.5B's published config.json, trimmed to the fields the architecture needs.
        file.write(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,
            "intermediate_size": 4864, "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
            "vocab_size": 151936, "tie_word_embeddings": true, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "max_position_embeddings": 32768, "hidden_act": "silu"})");
        file.close();
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        QString error;
        QVERIFY2(page.form()->addModelFile(path, &error), qPrintable(error));
        QVERIFY(waitForPlan(page));
        QVERIFY2(page.errorText().isEmpty(), qPrintable(page.errorText()));
        QCOMPARE(page.candidateModel()->rowCount(), 9);
    }

    // A 128 GiB workstation cannot hold Qwen2.5-14B's ~110 GiB of offloaded state in its usable 80 %;
    // a 512 GiB server can. The candidate table must say so, and why. (Step 1 decides zero0 here, so
    // the decision steps do not mention the offload strategies.)
    void hostRamDecidesWhetherOffloadFits()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        page.form()->setState(formWithoutHostRam());
        QVERIFY(waitForPlan(page));
        auto* hostRam = page.findChild<QDoubleSpinBox*>(QStringLiteral("hostRamSpin"));
        QVERIFY(hostRam);
        QCOMPARE(hostRam->value(), 512.0);
        for (Strategy s : { Strategy::Zero3Offload, Strategy::Fsdp2ReshardOffload }) {
            const CandidateView* c = shownCandidate(page, s);
            QVERIFY(c);
            QVERIFY2(c->fits, qPrintable(c->note));
        }

        hostRam->setValue(128); // as a user types it
        QVERIFY(waitForPlan(page));
        QVERIFY2(page.errorText().isEmpty(), qPrintable(page.errorText()));
        QCOMPARE(page.form()->state().value(QStringLiteral("host_ram_gib")).toDouble(), 128.0);
        for (Strategy s : { Strategy::Zero3Offload, Strategy::Fsdp2ReshardOffload }) {
            const CandidateView* c = shownCandidate(page, s);
            QVERIFY(c);
            QVERIFY(!c->fits);
            QVERIFY2(c->note.contains(QStringLiteral("host memory")), qPrintable(c->note));
            const int row = static_cast<int>(c - page.currentPlan().candidates.constData());
            QCOMPARE(page.candidateModel()
                         ->index(row, CandidateTableModel::FitsColumn)
                         .data(CandidateTableModel::RawValueRole)
                         .toBool(),
                     false);
            const QString shownFit
                = page.candidateModel()->index(row, CandidateTableModel::FitsColumn).data().toString();
            QVERIFY2(shownFit.contains(QStringLiteral("host")), qPrintable(shownFit));
            const QString why
                = page.candidateModel()->index(row, CandidateTableModel::FitsColumn).data(Qt::ToolTipRole).toString();
            QVERIFY2(why.contains(QStringLiteral("host memory")), qPrintable(why));
        }
        QVERIFY(!page.currentPlan().hasRecommendation || !traits(page.currentPlan().recommendation).offloadsOptimizer);
    }

    void hostRamOutOfRangeIsRefusedByName_data()
    {
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("below 1 GiB") << QJsonValue(0.5);
        QTest::newRow("negative") << QJsonValue(-64);
        QTest::newRow("above 1e6 GiB") << QJsonValue(2e6);
        QTest::newRow("text") << QJsonValue(QStringLiteral("128 GiB"));
        QTest::newRow("null") << QJsonValue(QJsonValue::Null);
    }
    void hostRamOutOfRangeIsRefusedByName()
    {
        QFETCH(QJsonValue, value);
        QJsonObject state = formWithoutHostRam();
        state[QStringLiteral("host_ram_gib")] = value;
        try {
            planInputFromState(state);
            QFAIL("an invalid host_ram_gib was accepted");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("cluster.host_ram_gib"));
        }
    }

    // Workspaces saved before the field existed plan with the default 512 GiB, in the form and in core.
    void formWithoutHostRamLoadsWithTheDefault()
    {
        QCOMPARE(planInputFromState(formWithoutHostRam()).cluster.hostRamGiB, 512.0);
        QJsonObject withRam = formWithoutHostRam();
        withRam[QStringLiteral("host_ram_gib")] = 96.0;
        QCOMPARE(planInputFromState(withRam).cluster.hostRamGiB, 96.0);

        QSettings().setValue(QStringLiteral("plan/form"),
                             QJsonDocument(formWithoutHostRam()).toJson(QJsonDocument::Compact));
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        auto* hostRam = page.findChild<QDoubleSpinBox*>(QStringLiteral("hostRamSpin"));
        QVERIFY(hostRam);
        QCOMPARE(hostRam->value(), 512.0);
        QCOMPARE(page.form()->state().value(QStringLiteral("host_ram_gib")).toDouble(), 512.0);
        QCOMPARE(page.form()->input().cluster.hostRamGiB, 512.0);
        QVERIFY(page.errorText().isEmpty());
    }

    void cudaGraphsSurviveARestartAndOlderFormsLoadWithout()
    {
        {
            PlanPage page(m_workspace);
            QVERIFY(waitForPlan(page));
            page.form()->setState(smallModelShortSequence(false));
            QVERIFY(waitForPlan(page));
            auto* graphs = page.findChild<QCheckBox*>(QStringLiteral("cudaGraphsCheck"));
            QVERIFY(graphs);
            QVERIFY(!graphs->isChecked());
            QVERIFY(!graphs->toolTip().isEmpty());
            graphs->click(); // as a user checks it
            QVERIFY(waitForPlan(page));
            QCOMPARE(page.form()->state().value(QStringLiteral("cuda_graphs")).toBool(), true);
        }
        PlanPage again(m_workspace);
        QVERIFY(waitForPlan(again));
        QVERIFY(again.findChild<QCheckBox*>(QStringLiteral("cudaGraphsCheck"))->isChecked());
        QVERIFY(again.form()->input().training.cudaGraphs);

        // A workspace saved before the option: unchecked, planned eager.
        QVERIFY(!formWithoutHostRam().contains(QStringLiteral("cuda_graphs")));
        QVERIFY(!planInputFromState(formWithoutHostRam()).training.cudaGraphs);
        again.form()->setState(formWithoutHostRam());
        QVERIFY(waitForPlan(again));
        QVERIFY(!again.findChild<QCheckBox*>(QStringLiteral("cudaGraphsCheck"))->isChecked());
        QCOMPARE(again.form()->state().value(QStringLiteral("cuda_graphs")).toBool(), false);
    }

    // Checking the box raises the predicted tokens/s of the GPU-resident strategies for a small model at
    // a short sequence; the offload strategies cannot be captured and keep theirs.
    void cudaGraphsRaiseTheSmallModelsPrediction()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        page.form()->setState(smallModelShortSequence(false));
        QVERIFY(waitForPlan(page));
        const PlanView eager = page.currentPlan();
        page.findChild<QCheckBox*>(QStringLiteral("cudaGraphsCheck"))->click();
        QVERIFY(waitForPlan(page));
        const PlanView graphed = page.currentPlan();
        QCOMPARE(graphed.candidates.size(), eager.candidates.size());
        for (qsizetype i = 0; i < graphed.candidates.size(); ++i) {
            const Strategy s = graphed.candidates[i].strategy;
            if (traits(s).offloadsOptimizer)
                QCOMPARE(graphed.candidates[i].tokensPerS, eager.candidates[i].tokensPerS);
            else
                QVERIFY2(graphed.candidates[i].tokensPerS > eager.candidates[i].tokensPerS, strategyId(s).data());
        }
    }

    // bf16-fp32-master steps AdamW with the host's step count: no strategy can be captured, so the box
    // is disabled and the plan stays eager; back on bf16 the box's state counts again.
    void cudaGraphsNeedPureBf16()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        page.form()->setState(smallModelShortSequence(true));
        QVERIFY(waitForPlan(page));
        auto* graphs = page.findChild<QCheckBox*>(QStringLiteral("cudaGraphsCheck"));
        auto* precision = page.findChild<QComboBox*>(QStringLiteral("precisionCombo"));
        QVERIFY(graphs && precision);
        QVERIFY(graphs->isEnabled());
        QVERIFY(page.form()->input().training.cudaGraphs);
        precision->setCurrentIndex(precision->findData(QStringLiteral("bf16-fp32-master")));
        QVERIFY(waitForPlan(page));
        QVERIFY(!graphs->isEnabled());
        QVERIFY(!page.form()->input().training.cudaGraphs);
        precision->setCurrentIndex(precision->findData(QStringLiteral("bf16")));
        QVERIFY(waitForPlan(page));
        QVERIFY(graphs->isEnabled());
        QVERIFY(page.form()->input().training.cudaGraphs);
    }

    // Validate queues every row of the run matrix with graphs only where the runner can capture it, and
    // with the warm-up capture needs: every request passes the runner's validation.
    void validationRunsCarryCudaGraphsOnlyWhereCapturable_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("device");
        QTest::addColumn<bool>("graphed");
        QTest::newRow("small model on a GPU")
            << QStringLiteral("qwen2.5-0.5b") << QStringLiteral("h200") << QStringLiteral("cuda") << true;
        QTest::newRow("small model, CPU validation")
            << QStringLiteral("qwen2.5-0.5b") << QStringLiteral("h200") << QStringLiteral("cpu") << false;
        QTest::newRow("offload plan on one L4")
            << QStringLiteral("qwen2.5-14b") << QStringLiteral("l4") << QStringLiteral("cuda") << false;
    }
    void validationRunsCarryCudaGraphsOnlyWhereCapturable()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(QString, device);
        QFETCH(bool, graphed);
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        QJsonObject state = smallModelShortSequence(true);
        state[QStringLiteral("model")] = model;
        state[QStringLiteral("gpu")] = gpu;
        state[QStringLiteral("interconnect")]
            = gpu == QLatin1String("l4") ? QStringLiteral("pcie") : QStringLiteral("nvlink");
        page.form()->setState(state);
        QVERIFY(waitForPlan(page));
        auto* deviceCombo = page.findChild<QComboBox*>(QStringLiteral("validationDeviceCombo"));
        QVERIFY(deviceCombo);
        deviceCombo->setCurrentIndex(deviceCombo->findData(device));
        page.setValidationSteps(1, 2);
        const QList<RunRequest> requests = page.validationRequests();
        QCOMPARE(requests.size(), page.currentPlan().runMatrix.size());
        QVERIFY(!requests.isEmpty());
        for (const RunRequest& r : requests) {
            const bool capturable = !traits(r.config.strategy).offloadsOptimizer;
            QCOMPARE(r.config.training.cudaGraphs, graphed && capturable);
            QCOMPARE(r.config.warmupSteps, r.config.training.cudaGraphs ? kCudaGraphWarmupSteps : 1);
            QCOMPARE(r.config.timedSteps, 2);
            QVERIFY(r.interNodeGBps.has_value()); // the plan's network goes with every run it asks for
            QCOMPARE(*r.interNodeGBps, page.currentPlan().interNodeGBps);
            try {
                validate(r.config);
            } catch (const SpecError& e) {
                QFAIL(e.what());
            }
        }
    }

    // ZeRO-3 on PCIe needed expandable segments in the reference: Validate keeps the form's setting
    // and says so as a suggestion, instead of turning them on behind the user's back.
    void validationKeepsTheAllocatorSettingAndSuggestsExpandableSegments()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        QJsonObject state = formWithoutHostRam();
        state[QStringLiteral("model")] = QStringLiteral("qwen2.5-3b");
        state[QStringLiteral("gpu")] = QStringLiteral("l4");
        state[QStringLiteral("gpus_per_node")] = 4;
        state[QStringLiteral("interconnect")] = QStringLiteral("pcie");
        page.form()->setState(state);
        QVERIFY(waitForPlan(page));
        const auto zero3Planned = [&page] {
            for (const PlannedRun& p : page.currentPlan().runMatrix)
                if (p.strategy == Strategy::Zero3)
                    return true;
            return false;
        };
        QVERIFY2(zero3Planned(), "the run matrix measures ZeRO-3 on 4 x L4 (PCIe)");
        auto* deviceCombo = page.findChild<QComboBox*>(QStringLiteral("validationDeviceCombo"));
        deviceCombo->setCurrentIndex(deviceCombo->findData(QStringLiteral("cuda")));
        for (const RunRequest& r : page.validationRequests())
            QVERIFY2(!r.config.training.expandableSegments, strategyId(r.config.strategy).data());
        QVERIFY2(page.validationSuggestion().contains(QStringLiteral("zero3"))
                     && page.validationSuggestion().contains(QStringLiteral("expandable_segments:True")),
                 qPrintable(page.validationSuggestion()));
        // Ticked by the user: every run has it, and there is nothing to suggest.
        state[QStringLiteral("expandable_segments")] = true;
        page.form()->setState(state);
        QVERIFY(waitForPlan(page));
        for (const RunRequest& r : page.validationRequests())
            QVERIFY(r.config.training.expandableSegments);
        QVERIFY(page.validationSuggestion().isEmpty());
    }

    // Validate with the PyTorch backend: only what PyTorch expresses is queued, every request names the
    // torch backend and has no CUDA graphs, and a prediction rides along only when the plan's framework
    // target is what the backend measures (fsdp2), never the native runner's figure for a PyTorch run.
    void validationWithTheTorchBackendQueuesWhatPyTorchRuns_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("predicted");
        QTest::newRow("native plan") << QStringLiteral("native") << false;
        QTest::newRow("fsdp2 plan") << QStringLiteral("fsdp2") << true;
    }
    void validationWithTheTorchBackendQueuesWhatPyTorchRuns()
    {
        QFETCH(QString, framework);
        QFETCH(bool, predicted);
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        QJsonObject state = smallModelShortSequence(true);
        state[QStringLiteral("gpus_per_node")] = 8;
        state[QStringLiteral("framework")] = framework;
        page.form()->setState(state);
        QVERIFY(waitForPlan(page));
        QCOMPARE(page.currentPlan().framework, *frameworkFromId(framework.toStdString()));
        auto* deviceCombo = page.findChild<QComboBox*>(QStringLiteral("validationDeviceCombo"));
        auto* backendCombo = page.findChild<QComboBox*>(QStringLiteral("validationBackendCombo"));
        QVERIFY(deviceCombo && backendCombo);
        deviceCombo->setCurrentIndex(deviceCombo->findData(QStringLiteral("cuda")));
        backendCombo->setCurrentIndex(backendCombo->findData(static_cast<int>(RunBackend::Torch)));
        page.setValidationSteps(1, 2);

        int expressible = 0;
        for (const PlannedRun& planned : page.currentPlan().runMatrix)
            expressible += frameworkSupports(Framework::Fsdp2, planned.strategy) ? 1 : 0;
        const QList<RunRequest> requests = page.validationRequests();
        QCOMPARE(requests.size(), expressible);
        QVERIFY(!requests.isEmpty());
        for (const RunRequest& r : requests) {
            QCOMPARE(r.config.backend, RunBackend::Torch);
            QVERIFY(frameworkSupports(Framework::Fsdp2, r.config.strategy));
            QVERIFY(!r.config.training.cudaGraphs);
            QCOMPARE(r.predicted.has_value(), predicted);
        }

        // Back to the native runner: the whole matrix, each with the native plan's prediction only.
        backendCombo->setCurrentIndex(backendCombo->findData(static_cast<int>(RunBackend::Native)));
        const QList<RunRequest> native = page.validationRequests();
        QCOMPARE(native.size(), page.currentPlan().runMatrix.size());
        for (const RunRequest& r : native) {
            QCOMPARE(r.config.backend, RunBackend::Native);
            QCOMPARE(r.predicted.has_value(), !predicted);
        }
    }

    void formStateSurvivesARestart()
    {
        {
            PlanPage page(m_workspace);
            QVERIFY(waitForPlan(page));
            page.form()->selectModel(QStringLiteral("mistral-7b"));
            page.form()->setGpuCount(8, 2);
            auto* hostRam = page.findChild<QDoubleSpinBox*>(QStringLiteral("hostRamSpin"));
            QVERIFY(hostRam);
            hostRam->setValue(192);
            QVERIFY(waitForPlan(page));
        }
        PlanPage again(m_workspace);
        QVERIFY(waitForPlan(again));
        QCOMPARE(again.form()->state().value(QStringLiteral("model")).toString(), QStringLiteral("mistral-7b"));
        QCOMPARE(again.form()->state().value(QStringLiteral("gpus_per_node")).toInt(), 8);
        QCOMPARE(again.form()->state().value(QStringLiteral("nodes")).toInt(), 2);
        QCOMPARE(again.form()->state().value(QStringLiteral("host_ram_gib")).toDouble(), 192.0);
        QCOMPARE(again.findChild<QDoubleSpinBox*>(QStringLiteral("hostRamSpin"))->value(), 192.0);
        QCOMPARE(again.form()->input().cluster.hostRamGiB, 192.0);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestPlanPage)
#include "test_plan_page.moc"
