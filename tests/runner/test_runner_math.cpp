// The runner's numerical building blocks in process: the host AdamW of the offload strategies against
// the reference single-tensor AdamW, and the chunked head + loss against plain logits + cross-entropy
// with autograd, for several chunkings, the fused SwiGLU and the linear layer that writes its weight
// gradient into the unit's buffer against autograd's.
#include "adamw.hpp"
#include "compat.hpp"
#include "cpu_adamw.hpp"
#include "flat_buffer.hpp"
#include "fused_norm.hpp"
#include "head_loss.hpp"
#include "linear.hpp"
#include "rotary.hpp"
#include "swiglu.hpp"

#include <QtTest>

#include <torch/autograd.h>

#include <tuple>

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
        auto param = at::randn({ n });
        auto refParam = param.clone();
        auto m = at::zeros({ n }), v = at::zeros({ n }), refM = m.clone(), refV = v.clone();
        AdamWSettings s;
        s.lr = 0.01;
        for (int step = 1; step <= 3; ++step) {
            const auto grad = at::randn({ n });
            cpuAdamWStep(param, grad, m, v, step, s);
            adamwStep(refParam, grad, refM, refV, step, s);
        }
        QVERIFY(!at::equal(param, at::zeros({ n })));
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
        const auto start = at::randn({ n }).to(at::kBFloat16);
        const auto grad = at::randn({ n }).to(at::kBFloat16);
        auto param = start.clone();
        auto m = at::zeros({ n }, at::kBFloat16), v = at::zeros({ n }, at::kBFloat16);
        AdamWSettings s;
        s.lr = 0.05;
        cpuAdamWStep(param, grad, m, v, 1, s);
        auto refParam = start.to(at::kFloat);
        auto refM = at::zeros({ n }), refV = at::zeros({ n });
        adamwStep(refParam, grad.to(at::kFloat), refM, refV, 1, s);
        QVERIFY(!at::equal(param, start));
        // One bf16 rounding: relative error <= 2^-8.
        QVERIFY2(allClose(param, refParam, 1.0 / 256, 1e-6), qPrintable(worst(param, refParam)));
        QVERIFY2(allClose(m, refM, 1.0 / 256, 1e-8), qPrintable(worst(m, refM)));
        QVERIFY2(allClose(v, refV, 1.0 / 256, 1e-10), qPrintable(worst(v, refV)));
    }

    void cpuAdamWRejectsMismatchedState()
    {
        const auto p = at::zeros({ 8 });
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            cpuAdamWStep(p, at::zeros({ 8 }), at::zeros({ 8 }, at::kBFloat16), at::zeros({ 8 }), 1, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 cpuAdamWStep(p, at::zeros({ 7 }), at::zeros({ 8 }), at::zeros({ 8 }), 1, {}));
    }

    void chunkedHeadLossMatchesCrossEntropy_data()
    {
        QTest::addColumn<qint64>("rowsPerChunk");
        QTest::addColumn<bool>("intoSink");
        QTest::addColumn<bool>("unwritten");
        QTest::newRow("automatic (one chunk)") << qint64 { 0 } << false << false;
        QTest::newRow("one row") << qint64 { 1 } << false << false;
        QTest::newRow("uneven") << qint64 { 3 } << false << false;
        QTest::newRow("two chunks") << qint64 { 6 } << false << false;
        QTest::newRow("uneven, into a gradient sink") << qint64 { 3 } << true << false;
        QTest::newRow("uneven, into an unwritten sink") << qint64 { 3 } << true << true;
    }
    void chunkedHeadLossMatchesCrossEntropy()
    {
        QFETCH(qint64, rowsPerChunk);
        QFETCH(bool, intoSink);
        at::manual_seed(11);
        const auto tokens = 10, hiddenSize = 8, vocab = 13;
        const auto hidden = at::randn({ tokens, hiddenSize }).requires_grad_(true);
        const auto weight = at::randn({ vocab, hiddenSize }).requires_grad_(true);
        const auto targets = at::randint(0, vocab, { tokens }, at::kLong);
        // An unwritten sink holds garbage (NaN) that the first chunk must overwrite, not add to.
        QFETCH(bool, unwritten);
        const auto sink = !intoSink ? at::Tensor()
            : unwritten             ? at::full({ vocab, hiddenSize }, std::nan(""))
                                    : at::zeros({ vocab, hiddenSize });
        std::uint8_t sinkFlag = unwritten ? 1 : 0;

        auto loss = chunkedHeadLoss(hidden, weight, targets, rowsPerChunk, sink, unwritten ? &sinkFlag : nullptr);
        QCOMPARE(sinkFlag, std::uint8_t { 0 });
        (loss * 2.5).backward(); // a non-unit incoming gradient reaches both gradients
        const auto gotHidden = hidden.grad().clone();
        QCOMPARE(weight.grad().defined(), !intoSink);
        const auto gotWeight = intoSink ? sink.clone() : weight.grad().clone();
        hidden.mutable_grad().reset();
        weight.mutable_grad().reset();

        auto want = at::cross_entropy_loss(at::linear(hidden, weight), targets);
        (want * 2.5).backward();
        QVERIFY2(allClose(loss.detach(), want.detach(), 1e-6, 1e-6),
                 qPrintable(QString::number(loss.item<double>()) + QStringLiteral(" vs ")
                            + QString::number(want.item<double>())));
        QVERIFY2(allClose(gotHidden, hidden.grad(), 1e-5, 1e-6), qPrintable(worst(gotHidden, hidden.grad())));
        QVERIFY2(allClose(gotWeight, weight.grad(), 1e-5, 1e-6), qPrintable(worst(gotWeight, weight.grad())));
    }

    void chunkedHeadLossBackpropagatedItselfSkipsTheScaling()
    {
        // IncomingGradient::One (the runner's loss.backward()): the same gradients as the scaled path,
        // into a sink and through autograd, with a gradient scale of 1/2 (two accumulated micro-batches).
        at::manual_seed(17);
        const auto tokens = 9, hiddenSize = 8, vocab = 11;
        const auto hidden = at::randn({ tokens, hiddenSize }).requires_grad_(true);
        const auto weight = at::randn({ vocab, hiddenSize }).requires_grad_(true);
        const auto targets = at::randint(0, vocab, { tokens }, at::kLong);
        for (const bool intoSink : { false, true }) {
            at::Tensor grads[2][2];
            for (const auto incoming : { IncomingGradient::Any, IncomingGradient::One }) {
                const auto sink = intoSink ? at::zeros({ vocab, hiddenSize }) : at::Tensor();
                chunkedHeadLoss(hidden, weight, targets, 4, sink, nullptr, 0.5, incoming).backward();
                const int i = incoming == IncomingGradient::One ? 1 : 0;
                grads[i][0] = hidden.grad().clone();
                grads[i][1] = intoSink ? sink.clone() : weight.grad().clone();
                hidden.mutable_grad().reset();
                weight.mutable_grad().reset();
            }
            QVERIFY(!at::equal(grads[1][0], at::zeros_like(grads[1][0])));
            QVERIFY2(at::equal(grads[0][0], grads[1][0]), qPrintable(worst(grads[0][0], grads[1][0])));
            QVERIFY2(at::equal(grads[0][1], grads[1][1]), qPrintable(worst(grads[0][1], grads[1][1])));
        }
    }

    void swigluMatchesTheComposition()
    {
        at::manual_seed(13);
        const auto gateUp = at::randn({ 4, 66 }).requires_grad_(true);
        const auto weights = at::randn({ 4, 33 });
        const auto out = swiglu(gateUp);
        (out * weights).sum().backward();
        const auto got = gateUp.grad().clone();
        gateUp.mutable_grad().reset();
        const auto halves = gateUp.chunk(2, -1);
        const auto want = at::silu(halves[0]) * halves[1];
        (want * weights).sum().backward();
        QVERIFY(allClose(out.detach(), want.detach(), 1e-6, 1e-7));
        QVERIFY2(allClose(got, gateUp.grad(), 1e-5, 1e-6), qPrintable(worst(got, gateUp.grad())));
    }

    void swigluRejectsAnOddWidth()
    {
        const auto gateUp = at::randn({ 2, 5 });
        QVERIFY_THROWS_EXCEPTION(c10::Error, swiglu(gateUp));
    }

    void rotaryTurnsEachPairByItsPositionsAngle()
    {
        // Rotate-half RoPE is the complex product (x_d + i x_{d+h}) * e^{i t theta_d} for each pair of a
        // head's first and second half (RoFormer, Su et al. 2021, eq. 34 in the half-split order).
        at::manual_seed(17);
        const std::int64_t batch = 2, heads = 3, seq = 5, dim = 8, h = dim / 2;
        const auto f64 = at::TensorOptions().dtype(at::kDouble);
        const auto theta = at::pow(10000.0, -at::arange(0, dim, 2, f64) / static_cast<double>(dim));
        const auto angles = at::outer(at::arange(seq + 2, f64), theta); // [seq + 2, h]
        const auto table = at::cat({ angles, angles }, -1);
        const auto x = at::randn({ batch, seq, heads, dim }, f64).transpose(1, 2).requires_grad_(true);
        const auto y = rotary(x, table.cos(), table.sin());

        const auto pairs = at::complex(x.narrow(3, 0, h), x.narrow(3, h, h));
        const auto turn = at::polar(at::ones_like(angles), angles).narrow(0, 0, seq); // [seq, h]
        const auto want = pairs * turn;
        QVERIFY(allClose(y.narrow(3, 0, h), at::real(want), 1e-12, 1e-12));
        QVERIFY(allClose(y.narrow(3, h, h), at::imag(want), 1e-12, 1e-12));

        // The backward pass turns the gradient back by the same angle (a rotation's transpose).
        const auto gy = at::randn({ batch, heads, seq, dim }, f64);
        y.backward(gy);
        const auto back = at::complex(gy.narrow(3, 0, h), gy.narrow(3, h, h)) * at::conj(turn);
        QVERIFY(allClose(x.grad().narrow(3, 0, h), at::real(back), 1e-12, 1e-12));
        QVERIFY(allClose(x.grad().narrow(3, h, h), at::imag(back), 1e-12, 1e-12));
    }

    void rotaryRejectsTablesShorterThanTheSequence()
    {
        const auto x = at::randn({ 1, 1, 4, 8 });
        const auto table = at::ones({ 3, 8 });
        QVERIFY_THROWS_EXCEPTION(c10::Error, rotary(x, table, table));
    }

    void rotaryQkvTurnsQAndKAndPassesV()
    {
        // The projection's output split into q, k and v heads: q and k turned as `rotary` turns them,
        // v untouched, and one gradient for the projection's output.
        at::manual_seed(23);
        const std::int64_t batch = 2, seq = 5, heads = 4, kvHeads = 2, dim = 8;
        const auto f64 = at::TensorOptions().dtype(at::kDouble);
        const auto angles = at::outer(at::arange(seq + 1, f64), at::arange(1, dim / 2 + 1, f64) / 7.0);
        const auto table = at::cat({ angles, angles }, -1);
        const auto qkv = at::randn({ batch, seq, (heads + 2 * kvHeads) * dim }, f64).requires_grad_(true);
        const auto got = rotaryQkv(qkv, heads, kvHeads, dim, table.cos(), table.sin());
        QCOMPARE(got.q.sizes().vec(), (std::vector<std::int64_t> { batch, heads, seq, dim }));
        QCOMPARE(got.k.sizes().vec(), (std::vector<std::int64_t> { batch, kvHeads, seq, dim }));
        const auto heads4 = [&](std::int64_t first, std::int64_t n) {
            return qkv.narrow(2, first * dim, n * dim).reshape({ batch, seq, n, dim }).transpose(1, 2);
        };
        QVERIFY(at::equal(got.q, rotary(heads4(0, heads), table.cos(), table.sin())));
        QVERIFY(at::equal(got.k, rotary(heads4(heads, kvHeads), table.cos(), table.sin())));
        QVERIFY(at::equal(got.v, heads4(heads + kvHeads, kvHeads)));
        const auto gv = at::randn(got.v.sizes(), f64);
        got.v.backward(gv);
        // Only v's columns get a gradient; q's and k's are zero.
        const auto grad = qkv.grad();
        QVERIFY(at::equal(grad.narrow(2, (heads + kvHeads) * dim, kvHeads * dim),
                          gv.transpose(1, 2).reshape({ batch, seq, kvHeads * dim })));
        QCOMPARE(grad.narrow(2, 0, (heads + kvHeads) * dim).abs().max().item<double>(), 0.0);
        QVERIFY_THROWS_EXCEPTION(c10::Error, rotaryQkv(qkv, heads, kvHeads + 1, dim, table.cos(), table.sin()));
    }

    void embeddingIntoGradMatchesAutograd_data()
    {
        QTest::addColumn<bool>("unwritten");
        QTest::newRow("adding to the tied head's gradient") << false;
        QTest::newRow("an unwritten range (untied)") << true;
    }
    void embeddingIntoGradMatchesAutograd()
    {
        // Repeated tokens, two sequences: each token's rows sum into its row of the table's gradient,
        // which holds the head's gradient already (added to) or garbage (flagged unwritten: overwritten).
        QFETCH(bool, unwritten);
        at::manual_seed(29);
        const std::int64_t vocab = 11, hidden = 6;
        const auto table = at::randn({ vocab, hidden }).requires_grad_(true);
        auto grad = at::randn({ vocab, hidden });
        const auto before = unwritten ? at::zeros_like(grad) : grad.clone();
        if (unwritten)
            grad.fill_(std::nan(""));
        std::uint8_t flag = unwritten ? 1 : 0;
        const auto ids = at::tensor({ 3, 7, 3, 0, 10, 3, 7, 1 }, at::TensorOptions().dtype(at::kLong)).view({ 2, 4 });
        const auto upstream = at::randn({ 2, 4, hidden });
        const auto h = embeddingIntoGrad(table, ids, grad, &flag);
        QVERIFY(at::equal(h, at::embedding(table, ids)));
        (h * upstream).sum().backward();
        QVERIFY(!table.grad().defined()); // nothing through autograd: it went into the range
        QCOMPARE(flag, std::uint8_t { 0 });

        const auto reference = table.detach().clone().requires_grad_(true);
        (at::embedding(reference, ids) * upstream).sum().backward();
        const auto added = grad - before;
        QVERIFY2(allClose(added, reference.grad(), 1e-6, 1e-6), qPrintable(worst(added, reference.grad())));
        QVERIFY_THROWS_EXCEPTION(c10::Error, embeddingIntoGrad(table, ids, grad.narrow(0, 0, 5), nullptr));
    }

    void spanOfAReleasedBufferAllocatesNothing()
    {
        // The engine takes gradient spans during the forward pass, while sharded strategies hold the
        // gradient buffers released; the span must see the bytes once the buffer is back.
        FlatBuffer buffer;
        buffer.allocate(24, at::TensorOptions().dtype(at::kFloat));
        buffer.release();
        const auto span = buffer.span(6, { 3, 4 });
        QCOMPARE(buffer.tensor().storage().nbytes(), std::size_t { 0 });
        QCOMPARE(span.sizes().vec(), (std::vector<std::int64_t> { 3, 4 }));
        QCOMPARE(span.storage_offset(), std::int64_t { 6 });
        buffer.materialize();
        buffer.tensor().copy_(at::arange(24, buffer.tensor().options()));
        QVERIFY(at::equal(span, at::arange(6, 18, span.options()).view({ 3, 4 })));
    }

    void linearIntoGradMatchesAutograd_data()
    {
        QTest::addColumn<bool>("withBias");
        QTest::addColumn<bool>("unwritten");
        QTest::newRow("weight only, accumulating") << false << false;
        QTest::newRow("weight and bias, accumulating") << true << false;
        QTest::newRow("weight only, overwriting an unwritten range") << false << true;
        QTest::newRow("weight and bias, overwriting an unwritten range") << true << true;
    }
    void linearIntoGradMatchesAutograd()
    {
        // Two adjacent slots (as q and k are) in one flat parameter buffer and its gradient buffer,
        // which already holds something: the backward must add to it, not overwrite it; unless the
        // range is flagged unwritten (what it holds is garbage), when it must overwrite it and clear
        // the flag.
        QFETCH(bool, withBias);
        QFETCH(bool, unwritten);
        std::uint8_t weightFlag = unwritten ? 1 : 0;
        std::uint8_t biasFlag = unwritten ? 1 : 0;
        at::manual_seed(17);
        const std::int64_t in = 6, outA = 5, outB = 3, out = outA + outB;
        const auto flat = at::randn({ out * in + out });
        auto flatGrad = at::randn({ out * in + out });
        LinearWeight w;
        w.weight = flat.narrow(0, 0, out * in).view({ out, in });
        w.weightGrad = flatGrad.narrow(0, 0, out * in).view({ out, in });
        if (withBias) {
            w.bias = flat.narrow(0, out * in, out);
            w.biasGrad = flatGrad.narrow(0, out * in, out);
        }
        w.weightUnwritten = &weightFlag;
        w.biasUnwritten = &biasFlag;
        // Garbage where the gradient is overwritten; NaN proves nothing of it is read.
        const auto original = flatGrad.clone();
        const auto before = unwritten ? at::zeros_like(flatGrad) : flatGrad.clone();
        if (unwritten)
            flatGrad.narrow(0, 0, withBias ? out * in + out : out * in).fill_(std::nan(""));
        const auto input = at::randn({ 2, 4, in }).requires_grad_(true);
        const auto upstream = at::randn({ 2, 4, out });
        const auto y = linearIntoGrad(input, w);
        (y * upstream).sum().backward();
        const auto gotInput = input.grad().clone();
        input.mutable_grad().reset();

        const auto weight = w.weight.detach().clone().requires_grad_(true);
        const auto bias = withBias ? w.bias.detach().clone().requires_grad_(true) : at::Tensor();
        const auto want = withBias ? at::linear(input, weight, bias) : at::linear(input, weight);
        (want * upstream).sum().backward();
        QVERIFY(allClose(y.detach(), want.detach(), 1e-6, 1e-6));
        QVERIFY2(allClose(gotInput, input.grad(), 1e-5, 1e-6), qPrintable(worst(gotInput, input.grad())));
        const auto addedWeight = w.weightGrad - before.narrow(0, 0, out * in).view({ out, in });
        QVERIFY2(allClose(addedWeight, weight.grad(), 1e-5, 1e-5), qPrintable(worst(addedWeight, weight.grad())));
        const auto biasPart = flatGrad.narrow(0, out * in, out) - before.narrow(0, out * in, out);
        if (withBias)
            QVERIFY2(allClose(biasPart, bias.grad(), 1e-5, 1e-5), qPrintable(worst(biasPart, bias.grad())));
        else // no bias: the range after the weight is not touched
            QVERIFY(at::equal(flatGrad.narrow(0, out * in, out), original.narrow(0, out * in, out)));
        QCOMPARE(weightFlag, std::uint8_t { 0 });
        QCOMPARE(biasFlag, static_cast<std::uint8_t>(!withBias && unwritten ? 1 : 0));
    }

    void linearOverANormRecomputesTheSameGradients()
    {
        // The q/k/v and gate/up projections take an RMSNorm's output; with NormedInput the backward
        // recomputes it from the norm's input: every gradient must equal the kept-input path's.
        at::manual_seed(19);
        const std::int64_t in = 8, out = 5;
        const auto x = at::randn({ 2, 3, in });
        const auto normWeight = at::randn({ in });
        const auto flat = at::randn({ out * in });
        auto gradKept = at::zeros({ out * in });
        auto gradRecomputed = at::zeros({ out * in });
        const auto upstream = at::randn({ 2, 3, out });
        auto pass = [&](at::Tensor& weightGrad, bool recompute) {
            const auto xs = x.clone().requires_grad_(true);
            const auto nw = normWeight.clone().requires_grad_(true);
            LinearWeight w;
            w.weight = flat.view({ out, in });
            w.weightGrad = weightGrad.view({ out, in });
            const NormedInput normed { xs, nw, 1e-6 };
            const auto a = compat::rmsNorm(xs, nw, 1e-6);
            const auto y = linearIntoGrad(a, w, recompute ? &normed : nullptr);
            (y * upstream).sum().backward();
            return std::make_pair(xs.grad(), nw.grad());
        };
        const auto kept = pass(gradKept, false);
        const auto recomputed = pass(gradRecomputed, true);
        QVERIFY(at::equal(gradKept, gradRecomputed));
        QVERIFY(at::equal(kept.first, recomputed.first));
        QVERIFY(at::equal(kept.second, recomputed.second));
        QVERIFY(gradKept.abs().sum().item<double>() > 0.0);
    }

    void fusedNormMatchesAutogradOfTheComposition_data()
    {
        QTest::addColumn<bool>("residual");
        QTest::addColumn<bool>("overwrite");
        QTest::addRow("input norm, accumulating") << false << false;
        QTest::addRow("input norm, fresh range") << false << true;
        QTest::addRow("residual norm, accumulating") << true << false;
        QTest::addRow("residual norm, fresh range") << true << true;
    }

    void fusedNormMatchesAutogradOfTheComposition()
    {
        // The fused norm's path around its kernels (fused_norm.hpp), here with the kernels' maths as ATen
        // ops: values, the gradients of x and of the residual (around the norm and through it), and the
        // weight's gradient written into its buffer, overwriting a fresh range or adding to a sum.
        QFETCH(bool, residual);
        QFETCH(bool, overwrite);
        at::manual_seed(23);
        constexpr double eps = 1e-6;
        const auto x = at::randn({ 2, 5, 24 }).requires_grad_(true);
        const auto r = at::randn({ 2, 5, 24 }).requires_grad_(true);
        const auto weight = 1 + 0.1 * at::randn({ 24 });
        const auto dn = at::randn({ 2, 5, 24 });
        const auto dres = at::randn({ 2, 5, 24 });
        auto grad = overwrite ? at::full({ 24 }, 7.0) : at::randn({ 24 });
        const auto before = grad.clone();
        std::uint8_t unwritten = 1;
        const NormWeight w { weight, grad, overwrite ? &unwritten : nullptr };
        at::Tensor h = x;
        at::Tensor n;
        if (residual) {
            std::tie(h, n) = fusedResidualRmsNorm(x, r, w, eps);
            torch::autograd::backward({ h, n }, { dres, dn });
        } else {
            n = fusedRmsNorm(x, w, eps);
            n.backward(dn);
        }

        const auto rx = x.detach().clone().requires_grad_(true);
        const auto rr = r.detach().clone().requires_grad_(true);
        const auto rw = weight.clone().requires_grad_(true);
        const auto rh = residual ? rx + rr : rx;
        const auto rn = compat::rmsNorm(rh, rw, eps);
        if (residual)
            torch::autograd::backward({ rh, rn }, { dres, dn });
        else
            rn.backward(dn);

        QVERIFY(at::equal(h.detach(), rh.detach()));
        QVERIFY(at::allclose(n, rn, 1e-5, 1e-6));
        QVERIFY(at::allclose(x.grad(), rx.grad(), 1e-5, 1e-6));
        if (residual)
            QVERIFY(at::allclose(r.grad(), rr.grad(), 1e-5, 1e-6));
        QVERIFY(at::allclose(grad, overwrite ? rw.grad() : before + rw.grad(), 1e-5, 1e-6));
        if (overwrite)
            QCOMPARE(unwritten, std::uint8_t { 0 });
        // The projections' recomputation gives the forward's value bit for bit.
        QVERIFY(at::equal(fusedRmsNormValue(h.detach(), weight, eps), n.detach()));
    }

    void fusedNormsHandOffTheResidualGradient()
    {
        // A layer's two norms sharing x (fused_norm.hpp, ResidualGradientHandoff): a = norm(x), and
        // {h, n} = norm(x + o) with o computed from a. The post-attention norm's backward leaves x's
        // gradient to the input norm's, which adds it: x's gradient must equal autograd's sum of the two.
        at::manual_seed(29);
        constexpr double eps = 1e-6;
        const auto x = at::randn({ 2, 5, 24 }).requires_grad_(true);
        const auto proj = 0.2 * at::randn({ 24, 24 });
        const auto w1 = 1 + 0.1 * at::randn({ 24 });
        const auto w2 = 1 + 0.1 * at::randn({ 24 });
        const auto dn = at::randn({ 2, 5, 24 });
        const auto dh = at::randn({ 2, 5, 24 });
        auto g1 = at::zeros({ 24 });
        auto g2 = at::zeros({ 24 });
        const auto handoff = residualGradientHandoff(x);
        const auto a = fusedRmsNorm(x, NormWeight { w1, g1, nullptr }, eps, handoff);
        const auto o = at::matmul(a, proj);
        const auto [h, n] = fusedResidualRmsNorm(x, o, NormWeight { w2, g2, nullptr }, eps, handoff);
        torch::autograd::backward({ h, n }, { dh, dn });
        QCOMPARE(handoff.box.numel(), std::int64_t { 0 }); // handed over and released

        const auto rx = x.detach().clone().requires_grad_(true);
        const auto rw1 = w1.clone().requires_grad_(true);
        const auto rw2 = w2.clone().requires_grad_(true);
        const auto rh = rx + at::matmul(compat::rmsNorm(rx, rw1, eps), proj);
        const auto rn = compat::rmsNorm(rh, rw2, eps);
        torch::autograd::backward({ rh, rn }, { dh, dn });

        QVERIFY(at::allclose(n, rn, 1e-5, 1e-6));
        QVERIFY(at::allclose(x.grad(), rx.grad(), 1e-5, 1e-6));
        QVERIFY(at::allclose(g1, rw1.grad(), 1e-5, 1e-6));
        QVERIFY(at::allclose(g2, rw2.grad(), 1e-5, 1e-6));
    }
};

QTEST_GUILESS_MAIN(TestRunnerMath)
#include "test_runner_math.moc"
