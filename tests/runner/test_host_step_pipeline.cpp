// The offload strategies' host step pipeline in process: a unit's work waits for its gradient's
// arrival, runs in arrival order while the backward hands units in and in ascending unit order once it
// has handed in all of them, waitFor blocks for exactly that unit, and a failure reaches the waiter.
#include "host_step_pipeline.hpp"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace shardwise::runner;

namespace {

// A copy to the host that completes when the test says so.
class Arrival final : public CommCompletion {
public:
    bool finished() const override { return done.load(); }
    std::atomic<bool> done { false };
};

struct Log {
    std::mutex mutex;
    std::vector<std::size_t> order;
    void add(std::size_t unit)
    {
        std::lock_guard lock(mutex);
        order.push_back(unit);
    }
    std::vector<std::size_t> snapshot()
    {
        std::lock_guard lock(mutex);
        return order;
    }
};

} // namespace

class TestHostStepPipeline : public QObject {
    Q_OBJECT
private slots:
    void workWaitsForItsGradientToArrive()
    {
        HostStepPipeline pipeline(3);
        Log log;
        auto arrival = std::make_shared<Arrival>();
        pipeline.submit(2, arrival, [&] { log.add(2); });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QVERIFY(!pipeline.idle(2));
        QVERIFY(log.snapshot().empty());
        arrival->done = true;
        pipeline.waitFor(2);
        QCOMPARE(log.snapshot(), std::vector<std::size_t> { 2 });
        QVERIFY(pipeline.idle(2));
    }

    void backwardOrderWhileHandingInThenForwardOrder()
    {
        // Units 4 and 3 are stepped as the backward hands them in; unit 2 is being stepped when 1 and 0
        // are handed in and the backward ends: the host takes 0 before 1 after it.
        HostStepPipeline pipeline(5);
        Log log;
        pipeline.submit(4, nullptr, [&] { log.add(4); });
        pipeline.waitFor(4);
        pipeline.submit(3, nullptr, [&] { log.add(3); });
        pipeline.waitFor(3);
        std::atomic<bool> started { false }, release { false };
        pipeline.submit(2, nullptr, [&] {
            started = true;
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            log.add(2);
        });
        while (!started)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        pipeline.submit(1, nullptr, [&] { log.add(1); });
        pipeline.submit(0, nullptr, [&] { log.add(0); });
        pipeline.submittedAll();
        release = true;
        pipeline.waitAll();
        QCOMPARE(log.snapshot(), (std::vector<std::size_t> { 4, 3, 2, 0, 1 }));
    }

    void beforeTheBackwardEndsArrivalOrderHolds()
    {
        // Without submittedAll the queue is first in, first out.
        HostStepPipeline pipeline(4);
        Log log;
        std::atomic<bool> started { false }, release { false };
        pipeline.submit(3, nullptr, [&] {
            started = true;
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            log.add(3);
        });
        while (!started)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        pipeline.submit(1, nullptr, [&] { log.add(1); });
        pipeline.submit(2, nullptr, [&] { log.add(2); });
        pipeline.submit(0, nullptr, [&] { log.add(0); });
        release = true;
        pipeline.waitAll();
        QCOMPARE(log.snapshot(), (std::vector<std::size_t> { 3, 1, 2, 0 }));
    }

    void theNextStepIsSteppedInArrivalOrderAgain()
    {
        // Step 1 ends with submittedAll; step 2's backward hands units in again and, until it ends,
        // they go first in, first out (not lowest first, which would wait on copies still in flight).
        HostStepPipeline pipeline(4);
        Log log;
        pipeline.submit(0, nullptr, [] {});
        pipeline.submittedAll();
        pipeline.waitFor(0);
        std::atomic<bool> started { false }, release { false };
        pipeline.submit(3, nullptr, [&] {
            started = true;
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            log.add(3);
        });
        while (!started)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        pipeline.submit(2, nullptr, [&] { log.add(2); });
        pipeline.submit(1, nullptr, [&] { log.add(1); });
        release = true;
        pipeline.waitFor(1);
        pipeline.waitFor(2);
        QCOMPARE(log.snapshot(), (std::vector<std::size_t> { 3, 2, 1 }));
    }

    void waitForReturnsForItsUnitWithoutTheRest()
    {
        HostStepPipeline pipeline(2);
        std::atomic<bool> release { false };
        pipeline.submit(0, nullptr, [] {});
        pipeline.submit(1, nullptr, [&] {
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
        pipeline.waitFor(0);
        QVERIFY(pipeline.idle(0));
        QVERIFY(!pipeline.idle(1));
        release = true;
        pipeline.waitAll();
        QVERIFY(pipeline.idle(1));
    }

    void aFailureReachesTheWaiter()
    {
        HostStepPipeline pipeline(2);
        pipeline.submit(1, nullptr, [] { throw std::runtime_error("host allocation failed"); });
        bool thrown = false;
        try {
            pipeline.waitAll();
        } catch (const std::runtime_error& e) {
            thrown = std::string(e.what()).find("host allocation failed") != std::string::npos;
        }
        QVERIFY(thrown);
    }

    void aUnitCannotBeSubmittedTwiceAtOnce()
    {
        HostStepPipeline pipeline(1);
        auto gate = std::make_shared<Arrival>();
        pipeline.submit(0, gate, [] {});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, pipeline.submit(0, nullptr, [] {}));
        gate->done = true;
        pipeline.waitAll();
    }

    void tornDownWhileACopyNeverArrives()
    {
        // A run failing mid-backward destroys the engine with a copy that will never complete.
        auto never = std::make_shared<Arrival>();
        bool ran = false;
        {
            HostStepPipeline pipeline(1);
            pipeline.submit(0, never, [&] { ran = true; });
        }
        QVERIFY(!ran);
    }
};

QTEST_GUILESS_MAIN(TestHostStepPipeline)
#include "test_host_step_pipeline.moc"
