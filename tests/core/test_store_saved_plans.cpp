// Named saved plans (shardwise/store/saved_plans.hpp) on a real SQLite file: saved, listed by name,
// found, renamed and removed; a taken, empty or control-character name refused naming it unless the
// save replaces; the input kept as given; a removed plan takes its name along; and a file from schema
// 10 migrated to 11 keeps its plans and saves names.
#include "shardwise/store/database.hpp"
#include "shardwise/store/plans.hpp"
#include "shardwise/store/saved_plans.hpp"
#include "shardwise/store/schema.hpp"

#include <QTemporaryDir>
#include <QtTest>

using namespace shardwise;
using namespace shardwise::store;

namespace {

template <typename F> QString storeErrorOf(F&& f)
{
    try {
        f();
    } catch (const StoreError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

StoredPlan planOf(const std::string& model, int world, std::optional<Strategy> recommended)
{
    StoredPlan p;
    p.title = model + " on " + std::to_string(world) + " x H100";
    p.modelId = model;
    p.gpuId = "h100-80gb";
    p.worldSize = world;
    p.recommended = recommended;
    p.document = { { "recommendation", { { "strategy", recommended ? strategyId(*recommended) : "" } } } };
    return p;
}

nlohmann::json formOf(const std::string& model, int gpus)
{
    return { { "model", model }, { "gpu", "h100-80gb" }, { "gpus_per_node", gpus }, { "seq_len", 4096 } };
}

} // namespace

class TestStoreSavedPlans : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::optional<Database> m_db;

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        const std::string path
            = m_dir.filePath(QStringLiteral("%1.sqlite").arg(QLatin1String(QTest::currentTestFunction())))
                  .toStdString();
        m_db.emplace(Database::open(path));
    }
    void cleanup() { m_db.reset(); }

    void savedPlansAreListedByNameWithTheirInput()
    {
        const auto b
            = savePlanAs(*m_db, "zero3 on 8", planOf("qwen2.5-32b", 8, Strategy::Zero3), formOf("qwen2.5-32b", 8));
        const auto a
            = savePlanAs(*m_db, "7B baseline", planOf("qwen2.5-7b", 1, Strategy::Zero0), formOf("qwen2.5-7b", 1));
        QVERIFY(a > 0 && b > 0 && a != b);
        const std::vector<SavedPlan> saved = listSavedPlans(*m_db);
        QCOMPARE(saved.size(), std::size_t(2));
        QCOMPARE(saved[0].name, std::string("7B baseline"));
        QCOMPARE(saved[1].name, std::string("zero3 on 8"));
        QCOMPARE(saved[0].plan.id, a);
        QCOMPARE(saved[0].plan.modelId, std::string("qwen2.5-7b"));
        QCOMPARE(saved[1].plan.recommended, std::optional<Strategy>(Strategy::Zero3));
        QCOMPARE(saved[1].input, formOf("qwen2.5-32b", 8));
        QCOMPARE(saved[1].plan.document, planOf("qwen2.5-32b", 8, Strategy::Zero3).document);
        QVERIFY(saved[0].savedAt > 0);
        // A saved plan is a stored plan like any other.
        QCOMPARE(listPlans(*m_db).size(), std::size_t(2));
        const auto found = findSavedPlan(*m_db, "zero3 on 8");
        QVERIFY(found);
        QCOMPARE(found->plan.id, b);
        QVERIFY(!findSavedPlan(*m_db, "zero3 on 16"));
        // Names are text as typed, Unicode included.
        savePlanAs(*m_db, "Qwen 72B · 2 Knoten", planOf("qwen2.5-72b", 16, std::nullopt), formOf("qwen2.5-72b", 8));
        const auto unicode = findSavedPlan(*m_db, "Qwen 72B · 2 Knoten");
        QVERIFY(unicode);
        QVERIFY(!unicode->plan.recommended);
    }

    void aTakenNameIsRefusedUnlessReplaced()
    {
        const auto first = savePlanAs(*m_db, "mine", planOf("qwen2.5-7b", 1, Strategy::Zero0), formOf("qwen2.5-7b", 1));
        const QString taken = storeErrorOf(
            [&] { savePlanAs(*m_db, "mine", planOf("qwen2.5-14b", 2, Strategy::Zero2), formOf("qwen2.5-14b", 2)); });
        QVERIFY2(taken.contains(QStringLiteral("saved_plan.name: 'mine' is taken")), qPrintable(taken));
        QCOMPARE(listPlans(*m_db).size(), std::size_t(1)); // nothing stored by the refused save
        QCOMPARE(findSavedPlan(*m_db, "mine")->plan.id, first);

        const auto second
            = savePlanAs(*m_db, "mine", planOf("qwen2.5-14b", 2, Strategy::Zero2), formOf("qwen2.5-14b", 2), true);
        const auto now = findSavedPlan(*m_db, "mine");
        QVERIFY(now);
        QCOMPARE(now->plan.id, second);
        QCOMPARE(now->plan.modelId, std::string("qwen2.5-14b"));
        QCOMPARE(now->input, formOf("qwen2.5-14b", 2));
        QCOMPARE(listSavedPlans(*m_db).size(), std::size_t(1));
        QVERIFY(findPlan(*m_db, first)); // the replaced plan stays stored, unnamed
    }

    void badNamesAndInputsAreRefusedNamingThem_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QString() << QStringLiteral("saved_plan.name: must not be empty");
        QTest::newRow("too long") << QString(201, QLatin1Char('x')) << QStringLiteral("at most 200 bytes, got 201");
        QTest::newRow("line break") << QStringLiteral("two\nlines")
                                    << QStringLiteral("saved_plan.name: 'two\nlines' holds a control character");
        QTest::newRow("tab") << QStringLiteral("a\tb") << QStringLiteral("holds a control character");
    }

    void badNamesAndInputsAreRefusedNamingThem()
    {
        QFETCH(QString, name);
        QFETCH(QString, message);
        const QString error = storeErrorOf([&] {
            savePlanAs(*m_db, name.toStdString(), planOf("qwen2.5-7b", 1, Strategy::Zero0), formOf("qwen2.5-7b", 1));
        });
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(listPlans(*m_db).empty());
        QVERIFY(listSavedPlans(*m_db).empty());
    }

    void theInputMustBeAnObjectAndThePlanValid()
    {
        QString error = storeErrorOf([&] {
            savePlanAs(*m_db, "x", planOf("qwen2.5-7b", 1, Strategy::Zero0), nlohmann::json::array({ 1, 2 }));
        });
        QVERIFY2(error.contains(QStringLiteral("saved_plan.input: must be a JSON object")), qPrintable(error));
        StoredPlan bad = planOf("qwen2.5-7b", 1, Strategy::Zero0);
        bad.worldSize = 0;
        error = storeErrorOf([&] { savePlanAs(*m_db, "x", bad, formOf("qwen2.5-7b", 1)); });
        QVERIFY2(error.contains(QStringLiteral("plan.world_size")), qPrintable(error));
        QVERIFY(listSavedPlans(*m_db).empty());
        QVERIFY(listPlans(*m_db).empty());
    }

    void renamedAndRemoved()
    {
        const auto id = savePlanAs(*m_db, "old", planOf("qwen2.5-7b", 1, Strategy::Zero0), formOf("qwen2.5-7b", 1));
        savePlanAs(*m_db, "other", planOf("qwen2.5-14b", 1, Strategy::Zero2Offload), formOf("qwen2.5-14b", 1));
        QVERIFY(renameSavedPlan(*m_db, "old", "new"));
        QVERIFY(!findSavedPlan(*m_db, "old"));
        QCOMPARE(findSavedPlan(*m_db, "new")->plan.id, id);
        QVERIFY(!renameSavedPlan(*m_db, "old", "newer")); // no such name
        const QString taken = storeErrorOf([&] { renameSavedPlan(*m_db, "new", "other"); });
        QVERIFY2(taken.contains(QStringLiteral("'other' is taken")), qPrintable(taken));
        QVERIFY(storeErrorOf([&] { renameSavedPlan(*m_db, "new", ""); }).contains(QStringLiteral("must not be empty")));

        QVERIFY(removeSavedPlan(*m_db, "new"));
        QVERIFY(!removeSavedPlan(*m_db, "new"));
        QVERIFY(findPlan(*m_db, id)); // the plan itself stays
        // Removing a stored plan takes its name along.
        const auto otherId = findSavedPlan(*m_db, "other")->plan.id;
        QVERIFY(removePlan(*m_db, otherId));
        QVERIFY(!findSavedPlan(*m_db, "other"));
        QVERIFY(listSavedPlans(*m_db).empty());
    }

    // A file from schema 10 (before saved plans) keeps its plans and saves names once migrated.
    void migratesFromVersion10()
    {
        const auto path = m_dir.filePath(QStringLiteral("v10.sqlite")).toStdString();
        std::int64_t old = 0;
        {
            OpenOptions options;
            options.targetVersion = kSavedPlansSchema - 1;
            Database db = Database::open(path, options);
            QCOMPARE(db.schemaVersion(), 10);
            old = savePlan(db, planOf("qwen2.5-3b", 1, Strategy::Zero0));
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QVERIFY(currentSchemaVersion() >= kSavedPlansSchema);
        QCOMPARE(db.integrityCheck(), std::string("ok"));
        QVERIFY(findPlan(db, old));
        QVERIFY(listSavedPlans(db).empty());
        savePlanAs(db, "after the upgrade", planOf("qwen2.5-3b", 2, Strategy::Zero1), formOf("qwen2.5-3b", 2));
        QCOMPARE(listSavedPlans(db).size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestStoreSavedPlans)
#include "test_store_saved_plans.moc"
