// The runner's numerical building blocks in process: the host AdamW of the offload strategies against
// the reference single-tensor AdamW, and the chunked head + loss against plain logits + cross-entropy
// with autograd, for several chunkings.
#include "adamw.hpp"
#include "cpu_adamw.hpp"
#include "head_loss.hpp"
#include "swiglu.hpp"

#include <QtTest>

using namespace shardwise::runner;

namespace {

bool allClose(const at::Tensor& a, const at::Tensor& b, double rtol, double atol)
{
    return at::allclose(a.to(at::kFloat), b.to(at::kFloat), rtol, atol);
}

QString worst(const at::Tensor& a, const at::Tensor& b)
{
    return QString::number((a.to(at::kFloat) - b.to(at::kFloat)).abs().max().item<double>(), 'g', 6);
}

} // namespace

class TestRunnerMath : public QObject {
    Q_OBJECT

private slots:
    void cpuAdamWMatchesReferenceInFp32()
    {
        at::manual_seed(3);
        const auto n = 100'003; // not a multiple of any vector width or task size
        auto param = at::randn({n});
        auto refParam = param.clone();
        auto m = at::zeros({n}), v = at::zeros({n}), refM = m.clone(), refV = v.clone();
        AdamWSettings s;
        s.lr = 0.01;
        for (int step = 1; step <= 3; ++step) {
            const auto grad = at::randn({n});
            cpuAdamWStep(param, grad, m, v, step, s);
            adamwStep(refParam, grad, refM, refV, step, s);
        }
        QVERIFY(!at::equal(param, at::zeros({n})));
        QVERIFY2(allClose(param, refParam, 1e-6, 1e-7), qPrintable(worst(param, refParam)));
        QVERIFY2(allClose(m, refM, 1e-6, 1e-7), qPrintable(worst(m, refM)));
        QVERIFY2(allClose(v, refV, 1e-6, 1e-9), qPrintable(worst(v, refV)));
    }

    void cpuAdamWInBf16FollowsFp32()
    {
        // bf16 state and gradient (the pure-bf16 offload path): one step from bf16-representable values
        // must land on the fp32 result rounded to bf16.
        at::manual_seed(5);
        const auto n = 70'001;
        const auto start = at::randn({n}).to(at::kBFloat16);
        const auto grad = at::randn({n}).to(at::kBFloat16);
        auto param = start.clone();
        auto m = at::zeros({n}, at::kBFloat16), v = at::zeros({n}, at::kBFloat16);
        AdamWSettings s;
        s.lr = 0.05;
        cpuAdamWStep(param, grad, m, v, 1, s);
        auto refParam = start.to(at::kFloat);
        auto refM = at::zeros({n}), refV = at::zeros({n});
        adamwStep(refParam, grad.to(at::kFloat), refM, refV, 1, s);
        QVERIFY(!at::equal(param, start));
        // One bf16 rounding: relative error <= 2^-8.
        QVERIFY2(allClose(param, refParam, 1.0 / 256, 1e-6), qPrintable(worst(param, refParam)));
        QVERIFY2(allClose(m, refM, 1.0 / 256, 1e-8), qPrintable(worst(m, refM)));
        QVERIFY2(allClose(v, refV, 1.0 / 256, 1e-10), qPrintable(worst(v, refV)));
    }

    void cpuAdamWRejectsMismatchedState()
    {
        const auto p = at::zeros({8});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 cpuAdamWStep(p, at::zeros({8}), at::zeros({8}, at::kBFloat16), at::zeros({8}), 1, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpuAdamWStep(p, at::zeros({7}), at::zeros({8}), at::zeros({8}), 1, {}));
    }

    void chunkedHeadLossMatchesCrossEntropy_data()
    {
        QTest::addColumn<qint64>("rowsPerChunk");
        QTest::newRow("automatic (one chunk)") << qint64{0};
        QTest::newRow("one row") << qint64{1};
        QTest::newRow("uneven") << qint64{3};
        QTest::newRow("two chunks") << qint64{6};
    }
    void chunkedHeadLossMatchesCrossEntropy()
    {
        QFETCH(qint64, rowsPerChunk);
        at::manual_seed(11);
        const auto tokens = 10, hiddenSize = 8, vocab = 13;
        const auto hidden = at::randn({tokens, hiddenSize}).requires_grad_(true);
        const auto weight = at::randn({vocab, hiddenSize}).requires_grad_(true);
        const auto targets = at::randint(0, vocab, {tokens}, at::kLong);

        auto loss = chunkedHeadLoss(hidden, weight, targets, rowsPerChunk);
        (loss * 2.5).backward(); // a non-unit incoming gradient reaches both stored gradients
        const auto gotHidden = hidden.grad().clone();
        const auto gotWeight = weight.grad().clone();
        hidden.mutable_grad().reset();
        weight.mutable_grad().reset();

        auto want = at::cross_entropy_loss(at::linear(hidden, weight), targets);
        (want * 2.5).backward();
        QVERIFY2(allClose(loss.detach(), want.detach(), 1e-6, 1e-6),
                 qPrintable(QString::number(loss.item<double>()) + QStringLiteral(" vs ") +
                            QString::number(want.item<double>())));
        QVERIFY2(allClose(gotHidden, hidden.grad(), 1e-5, 1e-6), qPrintable(worst(gotHidden, hidden.grad())));
        QVERIFY2(allClose(gotWeight, weight.grad(), 1e-5, 1e-6), qPrintable(worst(gotWeight, weight.grad())));
    }

    void swigluMatchesTheComposition()
    {
        at::manual_seed(13);
        const auto gate = at::randn({4, 33}).requires_grad_(true);
        const auto up = at::randn({4, 33}).requires_grad_(true);
        const auto weights = at::randn({4, 33});
        const auto out = swiglu(gate, up);
        (out * weights).sum().backward();
        const auto gotGate = gate.grad().clone();
        const auto gotUp = up.grad().clone();
        gate.mutable_grad().reset();
        up.mutable_grad().reset();
        const auto want = at::silu(gate) * up;
        (want * weights).sum().backward();
        QVERIFY(allClose(out.detach(), want.detach(), 1e-6, 1e-7));
        QVERIFY2(allClose(gotGate, gate.grad(), 1e-5, 1e-6), qPrintable(worst(gotGate, gate.grad())));
        QVERIFY2(allClose(gotUp, up.grad(), 1e-5, 1e-6), qPrintable(worst(gotUp, up.grad())));
    }
};

QTEST_GUILESS_MAIN(TestRunnerMath)
#include "test_runner_math.moc"
