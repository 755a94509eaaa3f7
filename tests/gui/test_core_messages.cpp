// The core's messages in the desktop app: every id the core has a template for has one in the GUI's
// table too (with the core's English as its source), and with the shipped German catalogue the Plan
// page's reasons, a run's diagnosis and next steps, and the Compare page's calibration line are
// German, numbers and plural included.
#include "gui_test_main.hpp"

#include "models/decision_step_model.hpp"
#include "models/display_format.hpp"
#include "models/run_diagnosis_view.hpp"
#include "pages/compare/compare_page.hpp"
#include "pages/plan/plan_page.hpp"
#include "shell/core_messages.hpp"
#include "shell/translations.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/diagnose/run_folder.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QLabel>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTranslator>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

QString q(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

void removeTranslators()
{
    for (QTranslator* t : QCoreApplication::instance()->findChildren<QTranslator*>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
}

// German until the guard goes: the shipped catalogue and the German number format.
auto inGerman()
{
    const QStringList loaded = installTranslations(*QCoreApplication::instance(), QLocale(QLocale::German));
    if (!loaded.contains(QStringLiteral("shardwise_de")))
        qWarning("shardwise_de did not load: %s", qPrintable(loaded.join(QLatin1Char(','))));
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    return qScopeGuard([] {
        removeTranslators();
        QLocale::setDefault(QLocale::c());
    });
}

// A completed H200 run with a stored configuration, as `shardwise-cli run` records one.
void recordH200Run(store::Database& db, Strategy s, int seq)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel("qwen2.5-0.5b");
    rc.strategy = s;
    rc.device = DeviceKind::Cuda;
    rc.training.seqLen = seq;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    store::RunOrigin origin;
    origin.nodes = { { "box-a", std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuId = "h200";
    origin.interconnect = "nvlink";
    store::RunRecorder recorder(db, rc, origin);
    const GpuSpec& gpu = *PresetCatalog::builtin().findGpu("h200");
    protocol::StartEvent start;
    start.config = rc;
    start.host = "box-a";
    start.deviceName = gpu.name;
    recorder.record(start);
    EstimateInput in;
    in.model = rc.model;
    in.gpu = gpu;
    in.training = rc.training;
    const Estimate e = estimate(in, s);
    protocol::SummaryEvent sum;
    sum.warmupSteps = 1;
    sum.timedSteps = 2;
    sum.tokensPerS = e.throughput.tokensPerS * 0.8;
    sum.medianStepS = e.throughput.stepTimeS / 0.8;
    sum.memory.peakAllocated = static_cast<std::int64_t>(e.memory.allocatedPeak());
    sum.memory.peakReserved = static_cast<std::int64_t>(e.memory.allocatedPeak() * 1.08);
    recorder.record(sum);
    recorder.finish(recorder.statusFromEvents());
}

} // namespace

class TestCoreMessages : public QObject {
    Q_OBJECT

private slots:
    void init() { QSettings().clear(); }

    void everyCoreIdHasAGuiTemplate()
    {
        const QStringList gui = coreMessageIds();
        QStringList missing;
        for (const MessageTemplate& t : messageCatalog()) {
            const QString id = q(t.id);
            if (!gui.contains(id)) {
                missing << id;
                continue;
            }
            // The English the GUI shows is the core's (the CLI's) wording; a plural template has %n.
            if (t.countArg > 0)
                QVERIFY2(coreMessageSource(id).contains(QStringLiteral("%n")), qPrintable(id));
            else
                QCOMPARE(coreMessageSource(id), q(t.english));
        }
        QVERIFY2(missing.isEmpty(),
                 qPrintable(QStringLiteral("no GUI template: ") + missing.join(QStringLiteral(", "))));
        for (const QString& id : gui)
            QVERIFY2(findMessageTemplate(id.toStdString()), qPrintable(id + QStringLiteral(" is not a core id")));
    }

    void pluralAndNumbersFollowTheLanguage()
    {
        const Message one { "calibrate.source_runs", { MessageArg::integer(1) } };
        const Message many { "calibrate.source_runs", { MessageArg::integer(25) } };
        const Message remedy { "plan.remedy_shorter_sequence",
                               { MessageArg::integer(2048), MessageArg::name("zero3") } };
        // English needs no catalogue: the core's own singular and plural.
        QCOMPARE(coreMessageText(one), QStringLiteral("1 run"));
        QCOMPARE(coreMessageText(many), QStringLiteral("25 runs"));
        {
            const auto german = inGerman();
            QCOMPARE(coreMessageText(one), QStringLiteral("1 Lauf"));
            QCOMPARE(coreMessageText(many), QStringLiteral("25 Läufen"));
            QCOMPARE(coreMessageText(remedy), QStringLiteral("Mit Sequenzen von 2.048 Token würde zero3 passen."));
            const Message nested { "plan.closest",
                                   { MessageArg::message(
                                       { "plan.does_not_fit_host",
                                         { MessageArg::name("zero3_offload"), MessageArg::gib(300.3, 1),
                                           MessageArg::gib(44.5, 1), MessageArg::gib(255.8, 1) } }) } };
            QCOMPARE(
                coreMessageText(nested),
                QStringLiteral("Am nächsten: zero3_offload passt nicht in den Hauptspeicher: Es braucht 300,3 GiB je "
                               "Knoten, 44,5 GiB mehr als die nutzbaren 255,8 GiB."));
        }
        QCOMPARE(coreMessageText(one), QStringLiteral("1 run"));
    }

    void planPageShowsGermanReasons()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("plan.sqlite")), &error), qPrintable(error));
        const auto german = inGerman();
        PlanPage page(workspace);
        QSignalSpy updated(&page, &PlanPage::planUpdated);
        QVERIFY(updated.wait(10000));
        QString decided;
        for (int row = 0; row < page.stepModel()->rowCount(); ++row)
            if (static_cast<StepVerdict>(page.stepModel()->index(row, 0).data(DecisionStepModel::VerdictRole).toInt())
                == StepVerdict::Decided)
                decided = page.stepModel()->index(row, DecisionStepModel::ReasonColumn).data().toString();
        QVERIFY2(!decided.isEmpty(), "no step decided");
        // The shipped German wording of core/plan's reasons, with German numbers.
        QVERIFY2(decided.contains(QStringLiteral("hat entschieden:")), qPrintable(decided));
        QVERIFY2(decided.contains(QStringLiteral("die vorhergesagte Spitze von")), qPrintable(decided));
        QVERIFY2(decided.contains(QStringLiteral("Prüfen Sie vor einem langen Lauf")), qPrintable(decided));
        QVERIFY2(decided.contains(QRegularExpression(QStringLiteral("\\d,\\d+ GiB"))), qPrintable(decided));
        QVERIFY2(!decided.contains(QStringLiteral("decided")) && !decided.contains(QStringLiteral(" fits")),
                 qPrintable(decided));
    }

    void runDiagnosisIsGerman()
    {
        const diagnose::Diagnosis d = diagnose::diagnose(
            diagnose::loadRunFolder(SHARDWISE_TEST_DATA_DIR "/diagnose/oom_fragmentation_single_rank"));
        const nlohmann::json document = diagnose::toJson(d);
        {
            const auto german = inGerman();
            const RunDiagnosisView view = diagnosisViewFromJson(document);
            QVERIFY2(view.explanation.startsWith(QStringLiteral("Der erste Fehler: Rang 0 auf gpu-a100-1 — ")),
                     qPrintable(view.explanation));
            QVERIFY2(view.explanation.contains(QStringLiteral("Es versuchte, 2,00 GiB zu belegen")),
                     qPrintable(view.explanation));
            QVERIFY2(!view.actions.isEmpty(), "no next steps");
            QVERIFY2(view.actions.front().text.startsWith(
                         QStringLiteral("Wiederholen Sie den Lauf einmal mit PYTORCH_CUDA_ALLOC_CONF")),
                     qPrintable(view.actions.front().text));
            // The deeper strategy's summary is the app's translated one, not the core's English.
            const QString summary = strategySummary(Strategy::Zero3);
            QVERIFY(summary != q(traits(Strategy::Zero3).summary));
            QCOMPARE(view.actions.at(1).text, QStringLiteral("Tiefer sharden: zero2 → zero3 (%1)").arg(summary));
            QVERIFY2(view.actions.back().text.startsWith(QStringLiteral("Passt auch das tiefste Sharding nicht")),
                     qPrintable(view.actions.back().text));
        }
        // In English the view says what the core (and the CLI) say.
        const RunDiagnosisView english = diagnosisViewFromJson(document);
        QCOMPARE(english.explanation, QString::fromStdString(d.explanation));
        QCOMPARE(english.actions.front().text, QString::fromStdString(d.actions.front().text));
    }

    void compareCalibrationLineIsGermanWithThePlural()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        for (Strategy s :
             { Strategy::Zero0, Strategy::Zero1, Strategy::Zero2, Strategy::Fsdp2NoReshard, Strategy::Fsdp2Reshard })
            for (int seq : { 512, 1024, 2048, 4096, 8192 })
                recordH200Run(*workspace.database(), s, seq);
        const auto german = inGerman();
        ComparePage page(workspace);
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 120000);
        const QString line = page.calibrationLine()->text();
        QVERIFY2(line.contains(QStringLiteral("GPU h200: Kalibrierung aus 25 Läufen, Vertrauen")), qPrintable(line));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestCoreMessages)
#include "test_core_messages.moc"
