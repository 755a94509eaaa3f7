// Checkpoint interval planning: Young's and Daly's optima, the whole-step rounding, the expected
// loss and overhead, and the save-cost estimate, against values computed by hand.
#include "shardwise/interruption/checkpoint_interval.hpp"
#include "shardwise/interruption/save_cost.hpp"

#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace shardwise;
using namespace shardwise::interruption;

class TestInterruption : public QObject {
    Q_OBJECT

private slots:
    void youngIsSquareRootOfTwiceSaveTimesMtbf_data()
    {
        QTest::addColumn<double>("save");
        QTest::addColumn<double>("mtbf");
        QTest::addColumn<double>("expected");
        // sqrt(2 * 60 * 3600) = sqrt(432000)
        QTest::newRow("1 min save, 1 h MTBF") << 60.0 << 3600.0 << 657.2670690061993;
        // sqrt(2 * 8 * 7200) = sqrt(115200)
        QTest::newRow("8 s save, 2 h MTBF") << 8.0 << 7200.0 << 339.41125496954277;
    }
    void youngIsSquareRootOfTwiceSaveTimesMtbf()
    {
        QFETCH(double, save);
        QFETCH(double, mtbf);
        QFETCH(double, expected);
        QCOMPARE(youngInterval(save, mtbf), expected);
    }

    void dalyAddsHigherOrderTermsAndSubtractsTheSave()
    {
        // x = 60 / 7200; 657.267069 * (1 + sqrt(x)/3 + x/9) - 60 = 617.87565
        QVERIFY(std::abs(dalyInterval(60.0, 3600.0) - 617.8756496256495) < 1e-9);
        // The correction shrinks the interval below Young's when the save is small against M.
        QVERIFY(dalyInterval(60.0, 3600.0) < youngInterval(60.0, 3600.0));
    }

    void dalyIsTheMtbfWhenASaveTakesTwiceAsLong()
    {
        QCOMPARE(dalyInterval(8000.0, 3600.0), 3600.0);
        QCOMPARE(dalyInterval(7200.0, 3600.0), 3600.0);
    }

    void recommendationRoundsToTheWholeStepWithLowerOverhead()
    {
        // M = 3600 s, C = 60 s, R = 30 s, step 10 s: Daly 617.9 s = 61.8 steps. Overhead (Daly's
        // T_w/T_s - 1) at 61 steps 0.2173185, at 62 steps 0.2173024: 62 wins.
        const CheckpointRecommendation r = recommendCheckpointInterval({ 1.0, 10.0, 60.0, 30.0 });
        QCOMPARE(r.meanTimeBetweenInterruptionsS, 3600.0);
        QCOMPARE(r.intervalSteps, 62);
        QCOMPARE(r.intervalS, 620.0);
        QVERIFY(std::abs(r.expectedOverheadFraction - 0.2173024227079985) < 1e-9);
        QVERIFY(std::abs(r.saveOverheadFraction - 60.0 / 620.0) < 1e-12);
    }

    void lostWorkIsAboutHalfTheSegmentPlusRestart()
    {
        // E[t | t < 680] for M = 3600: 3600 - 680 / expm1(680/3600) = 329.30 s, close to 680 / 2.
        const CheckpointRecommendation r = recommendCheckpointInterval({ 1.0, 10.0, 60.0, 30.0 });
        QVERIFY(std::abs(r.expectedRecomputeS - 329.3026558536899) < 1e-6);
        QVERIFY(std::abs(r.expectedLostPerInterruptionS - (329.3026558536899 + 30.0)) < 1e-6);
        QVERIFY(r.expectedRecomputeS < (r.intervalS + 60.0) / 2.0);
    }

    void overheadIsLowestNearTheOptimum()
    {
        const double m = 3600.0;
        const double best = expectedOverheadFraction(dalyInterval(60.0, m), 60.0, 30.0, m);
        QVERIFY(best < expectedOverheadFraction(300.0, 60.0, 30.0, m));
        QVERIFY(best < expectedOverheadFraction(1200.0, 60.0, 30.0, m));
    }

    void stepsLongerThanTheOptimumCheckpointEveryStep()
    {
        // Daly optimum ~ 91 s with C = 1 s, M = 3600 s... a 500 s step can only checkpoint every step.
        const CheckpointRecommendation r = recommendCheckpointInterval({ 1.0, 500.0, 1.0, 0.0 });
        QCOMPARE(r.intervalSteps, 1);
        QCOMPARE(r.intervalS, 500.0);
    }

    void badInputNamesTheField_data()
    {
        QTest::addColumn<double>("rate");
        QTest::addColumn<double>("step");
        QTest::addColumn<double>("save");
        QTest::addColumn<double>("restart");
        QTest::addColumn<QString>("field");
        QTest::newRow("no interruptions") << 0.0 << 1.0 << 1.0 << 0.0 << QStringLiteral("interruptions_per_hour");
        QTest::newRow("zero step") << 1.0 << 0.0 << 1.0 << 0.0 << QStringLiteral("step_time_s");
        QTest::newRow("zero save") << 1.0 << 1.0 << 0.0 << 0.0 << QStringLiteral("checkpoint_save_s");
        QTest::newRow("negative restart") << 1.0 << 1.0 << 1.0 << -1.0 << QStringLiteral("restart_s");
    }
    void badInputNamesTheField()
    {
        QFETCH(double, rate);
        QFETCH(double, step);
        QFETCH(double, save);
        QFETCH(double, restart);
        QFETCH(QString, field);
        try {
            recommendCheckpointInterval({ rate, step, save, restart });
            QFAIL("accepted bad input");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(field), e.what());
        }
    }

    void saveCostCountsParametersAndOptimizerOfTheBusiestNode_data()
    {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<double>("busiestNodeBytes");
        // 1e9 parameters, pure bf16 (2 bytes params, 2 + 2 bytes Adam moments), 2 nodes x 4 GPUs.
        // zero0: rank 0 writes one full copy: 2e9 + 4e9 bytes.
        QTest::newRow("zero0") << static_cast<int>(Strategy::Zero0) << 6e9;
        // zero1: parameters once (2e9), optimizer sharded 8 ways, 4 shards on node 0: 4e9 / 2.
        QTest::newRow("zero1") << static_cast<int>(Strategy::Zero1) << 4e9;
        // zero3: everything sharded 8 ways, node 0 holds half: 6e9 / 2.
        QTest::newRow("zero3") << static_cast<int>(Strategy::Zero3) << 3e9;
    }
    void saveCostCountsParametersAndOptimizerOfTheBusiestNode()
    {
        QFETCH(int, strategy);
        QFETCH(double, busiestNodeBytes);
        ClusterSpec cluster;
        cluster.gpusPerNode = 4;
        cluster.nodes = 2;
        const SaveCostEstimate e
            = estimateSaveCost(static_cast<Strategy>(strategy), 1e9, PrecisionPolicy::PureBf16, cluster, 2.0);
        QVERIFY2(std::abs(e.bytesBusiestNode - busiestNodeBytes) < 1e3,
                 qPrintable(QString::number(e.bytesBusiestNode)));
        QVERIFY(std::abs(e.saveS - busiestNodeBytes / 2e9) < 1e-6);
    }

    void saveCostRejectsZeroBandwidth()
    {
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            estimateSaveCost(Strategy::Zero3, 1e9, PrecisionPolicy::PureBf16, ClusterSpec {}, 0.0));
    }
};

QTEST_GUILESS_MAIN(TestInterruption)
#include "test_interruption.moc"
