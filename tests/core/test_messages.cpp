// The core's messages (shardwise/spec/message.hpp): every id the core's sources emit has an English
// template, every template's placeholders are numbered without gaps, and the messages that real plans
// carry fill every placeholder, so the English the CLI prints never shows a "%3".
#include "shardwise/diagnose/run_folder.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace shardwise;

namespace {

QString q(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// The ids the core's sources spell as string literals ("plan.x", "calibrate.x", "diagnose.x", "list.x").
QSet<QString> idsInCoreSources()
{
    QSet<QString> ids;
    const QRegularExpression literal(QStringLiteral("\"((?:plan|calibrate|diagnose|list)\\.[a-z0-9_]+)\""));
    for (const char* dir : { "/core/plan/src", "/core/calibrate/src", "/core/diagnose/src", "/core/spec/src" }) {
        QDirIterator it(QStringLiteral(SHARDWISE_SOURCE_DIR) + QLatin1String(dir), { QStringLiteral("*.cpp") });
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.endsWith(QLatin1String("/message_catalog.cpp")))
                continue; // the templates themselves
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly))
                continue;
            const QString text = QString::fromUtf8(f.readAll());
            for (auto m = literal.globalMatch(text); m.hasNext();)
                ids.insert(m.next().captured(1));
        }
    }
    return ids;
}

// Checks one message and its nested ones; returns what is wrong, empty when nothing is.
QString problemsOf(const Message& m, QSet<QString>& seen)
{
    seen.insert(q(m.id));
    const MessageTemplate* t = findMessageTemplate(m.id);
    if (!t)
        return QStringLiteral("%1 has no English template").arg(q(m.id));
    if (static_cast<int>(m.args.size()) != placeholderCount(t->english))
        return QStringLiteral("%1 carries %2 arguments for %3 placeholders")
            .arg(q(m.id))
            .arg(m.args.size())
            .arg(placeholderCount(t->english));
    static const QRegularExpression leftover(QStringLiteral("%[0-9]"));
    const QString english = QString::fromStdString(renderEnglish(m));
    if (english.contains(leftover))
        return QStringLiteral("%1 renders with a placeholder left: %2").arg(q(m.id), english);
    for (const MessageArg& a : m.args) {
        if (a.kind == MessageArgKind::Nested) {
            if (a.nested.size() != 1)
                return QStringLiteral("%1 has a nested argument without exactly one message").arg(q(m.id));
            const QString nested = problemsOf(a.nested.front(), seen);
            if (!nested.isEmpty())
                return nested;
        }
    }
    return {};
}

EstimateInput input(const char* model, const char* gpu, int gpus, Interconnect link, int seq, int microBatch)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(model);
    in.gpu = *PresetCatalog::builtin().findGpu(gpu);
    in.cluster.gpusPerNode = gpus;
    in.cluster.intraNode = link;
    in.training.seqLen = seq;
    in.training.microBatch = microBatch;
    return in;
}

} // namespace

class TestMessages : public QObject {
    Q_OBJECT

private slots:
    void countsReadAsEnglish()
    {
        // The command line's counts: singular for exactly one, "s" plural otherwise (zero included).
        QCOMPARE(countOf(1, "rank"), std::string("1 rank"));
        QCOMPARE(countOf(0, "run"), std::string("0 runs"));
        QCOMPARE(countOf(8, "GPU"), std::string("8 GPUs"));
        QCOMPARE(countOf(2, "published run"), std::string("2 published runs"));
    }

    void catalogIsWellFormed()
    {
        QSet<QString> ids;
        for (const MessageTemplate& t : messageCatalog()) {
            QVERIFY2(!t.id.empty() && !t.english.empty(), qPrintable(q(t.id)));
            QVERIFY2(!ids.contains(q(t.id)), qPrintable(QStringLiteral("duplicate id ") + q(t.id)));
            ids.insert(q(t.id));
            // Every placeholder up to the highest appears: an argument that no placeholder shows is lost.
            const int n = placeholderCount(t.english);
            for (int k = 1; k <= n; ++k)
                QVERIFY2(q(t.english).contains(QLatin1Char('%') + QString::number(k)),
                         qPrintable(QStringLiteral("%1 lacks %%2").arg(q(t.id)).arg(k)));
            if (t.countArg > 0) {
                QVERIFY2(t.countArg <= n, qPrintable(q(t.id)));
                QCOMPARE(placeholderCount(t.englishOne), n);
            }
            // Rendered with as many arguments as it has placeholders, nothing of the template's syntax is left.
            Message m { std::string(t.id), {} };
            for (int k = 0; k < n; ++k)
                m.args.push_back(MessageArg::integer(k + 2));
            QVERIFY2(!QString::fromStdString(renderEnglish(m)).contains(QRegularExpression(QStringLiteral("%[0-9]"))),
                     qPrintable(q(t.id)));
        }
    }

    void everyIdInTheCoreSourcesHasATemplate()
    {
        const QSet<QString> used = idsInCoreSources();
        QVERIFY2(used.size() >= 40, qPrintable(QString::number(used.size())));
        for (const QString& id : used)
            QVERIFY2(findMessageTemplate(id.toStdString()),
                     qPrintable(id + QStringLiteral(" has no English template")));
        // And no template is left that nothing emits.
        for (const MessageTemplate& t : messageCatalog())
            QVERIFY2(used.contains(q(t.id)), qPrintable(q(t.id) + QStringLiteral(" is emitted nowhere")));
    }

    void englishRendering()
    {
        const Message fits { "plan.fits",
                             { MessageArg::name("zero0"),
                               MessageArg::message(
                                   { "plan.peak_within_usable",
                                     { MessageArg::gib(70.04, 1), MessageArg::gib(68.0, 1), MessageArg::gib(2.04, 1),
                                       MessageArg::gib(75.6, 1), MessageArg::gib(79.6, 1), MessageArg::gib(4.0, 1) } }),
                               MessageArg::gib(5.55, 1), MessageArg::tokensPerS(12345.6, 0),
                               MessageArg::seconds(0.5126, 3), MessageArg::percent(45.25, 1) } };
        QCOMPARE(renderEnglish(fits),
                 std::string("zero0 fits: predicted peak 70.0 GiB (68.0 GiB allocated + 2.0 GiB CUDA context and NCCL) "
                             "within the usable 75.6 GiB (the GPU's 79.6 GiB less 4.0 GiB headroom), 5.5 GiB to spare; "
                             "predicted 12346 tokens/s, step 0.513 s, MFU 45.2 %."));
        QCOMPARE(renderEnglish(Message { "calibrate.source_runs", { MessageArg::integer(1) } }), std::string("1 run"));
        QCOMPARE(renderEnglish(Message { "calibrate.source_runs", { MessageArg::integer(25) } }),
                 std::string("25 runs"));
        QCOMPARE(
            renderEnglish(Message {
                "plan.offload_against",
                { MessageArg::name("fsdp2_reshard"), MessageArg::percent(52.4, 0), MessageArg::ratio(3.45, 1) } }),
            std::string("Against fsdp2_reshard, offload is predicted to cut the GPU peak by 52 % and throughput by "
                        "3.5x; in the reference benchmark CPU offload cut peak memory by roughly 40-65 % and "
                        "throughput by roughly 3-9x."));
        // An id the catalog lacks still shows its arguments.
        QCOMPARE(renderEnglish(Message { "plan.no_such_id", { MessageArg::integer(3), MessageArg::name("x") } }),
                 std::string("plan.no_such_id(3, x)"));
    }

    void plansCarryCompleteMessages()
    {
        const EstimateInput inputs[] = {
            input("qwen2.5-3b", "h200", 1, Interconnect::NvLink, 2048, 1),
            input("qwen2.5-7b", "a100-80gb", 8, Interconnect::NvLink, 8192, 1),
            input("qwen2.5-7b", "h100-80gb", 8, Interconnect::NvLink, 4096, 1),
            input("qwen2.5-72b", "h200", 8, Interconnect::NvLink, 512, 1),
            input("qwen2.5-72b", "h200", 8, Interconnect::Pcie, 512, 1),
            input("qwen2.5-14b", "l4", 1, Interconnect::Pcie, 512, 1),
            input("qwen2.5-72b", "a100-40gb", 8, Interconnect::NvLink, 4096, 1),
            input("qwen2.5-7b", "l4", 1, Interconnect::Pcie, 8192, 4),
        };
        QSet<QString> seen;
        for (EstimateInput in : inputs) {
            for (Framework fw : { Framework::Native, Framework::DeepSpeed, Framework::Fsdp2 }) {
                in.framework.framework = fw;
                in.training.precision = defaultPrecision(fw);
                const Plan p = makePlan(in);
                const Recommendation& r = p.recommendation;
                QCOMPARE(r.reasons.size(), r.reasonMessages.size());
                for (std::size_t i = 0; i < r.reasons.size(); ++i) {
                    const QString problem = problemsOf(r.reasonMessages[i], seen);
                    QVERIFY2(problem.isEmpty(), qPrintable(problem));
                    QCOMPARE(r.reasons[i], renderEnglish(r.reasonMessages[i]));
                }
            }
        }
        // The grid reaches every decision step and the framework reasons.
        for (const char* id : { "plan.step1_decided", "plan.step2_decided", "plan.step3_decided", "plan.nothing_fits",
                                "plan.framework_assumed", "plan.peak_exceeds_usable", "plan.validate" })
            QVERIFY2(seen.contains(QLatin1String(id)), id);
    }

    void diagnosesCarryCompleteMessages()
    {
        const QString corpus = QStringLiteral(SHARDWISE_TEST_DATA_DIR "/diagnose");
        const QStringList cases = QDir(corpus).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY2(cases.size() >= 9, qPrintable(corpus));
        QSet<QString> seen;
        for (const QString& c : cases) {
            const diagnose::Diagnosis d
                = diagnose::diagnose(diagnose::loadRunFolder((corpus + QLatin1Char('/') + c).toStdString()));
            QVERIFY2(!d.explanationMessages.empty(), qPrintable(c));
            std::string english;
            for (const Message& m : d.explanationMessages) {
                const QString problem = problemsOf(m, seen);
                QVERIFY2(problem.isEmpty(), qPrintable(c + QStringLiteral(": ") + problem));
                english += (english.empty() ? "" : " ") + renderEnglish(m);
            }
            QCOMPARE(d.explanation, english);
            for (const diagnose::Action& a : d.actions) {
                const QString problem = problemsOf(a.message, seen);
                QVERIFY2(problem.isEmpty(), qPrintable(c + QStringLiteral(": ") + problem));
                QCOMPARE(a.text, renderEnglish(a.message));
            }
            QCOMPARE(d.notes.size(), d.noteMessages.size());
            for (std::size_t i = 0; i < d.notes.size(); ++i) {
                const QString problem = problemsOf(d.noteMessages[i], seen);
                QVERIFY2(problem.isEmpty(), qPrintable(c + QStringLiteral(": ") + problem));
                QCOMPARE(d.notes[i], renderEnglish(d.noteMessages[i]));
            }
            // The messages travel in the diagnosis JSON and read back unchanged.
            const nlohmann::json j = diagnose::toJson(d);
            for (std::size_t i = 0; i < d.explanationMessages.size(); ++i)
                QCOMPARE(messageFromJson(j["explanation_messages"][i]), d.explanationMessages[i]);
            for (std::size_t i = 0; i < d.actions.size(); ++i)
                QCOMPARE(messageFromJson(j["actions"][i]["message"]), d.actions[i].message);
        }
        for (const char* id : { "diagnose.first_failure", "diagnose.clean", "diagnose.oom_fragmented",
                                "diagnose.action_rerun_expandable", "diagnose.symptoms_only", "diagnose.rank_on" })
            QVERIFY2(seen.contains(QLatin1String(id)), id);
    }

    void messageJsonNamesTheBadField()
    {
        try {
            messageFromJson(
                nlohmann::json::parse(R"({"id": "plan.closest", "args": [{"kind": "furlongs", "value": 1}]})"));
            QFAIL("an unknown argument kind was accepted");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("message.args[0].kind"));
        }
    }
};

QTEST_APPLESS_MAIN(TestMessages)
#include "test_messages.moc"
