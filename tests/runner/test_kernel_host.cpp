// The rotary q/k/v, SwiGLU, cross-entropy and AdamW CUDA kernels' bodies (runner/src/rotary_qkv_kernel.hpp,
// swiglu_kernel.hpp, cross_entropy_kernel.hpp, adamw_kernel_body.hpp) run on the CPU over every index
// (cross-entropy: every thread's share of every row) at each pack width, against the ATen composition
// (AdamW: torch.optim.AdamW's single-tensor steps in double): their indexing, strides, packing and maths
// checked without a GPU (shardwise-runner-kernel-check does the same on a GPU, with the warp and block
// reductions the emulation replaces by a plain fold).
// bf16 is emulated bit for bit as the top half of an fp32 with round-to-nearest-even, as
// cuda_bf16.h's __float2bfloat16 and ATen's BFloat16 round.
#include <ATen/ATen.h>
#include <QtTest>
#include <torch/autograd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

struct __nv_bfloat16 {
    std::uint16_t bits;
};
inline float __bfloat162float(__nv_bfloat16 b)
{
    const std::uint32_t u = static_cast<std::uint32_t>(b.bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
inline __nv_bfloat16 __float2bfloat16(float f)
{
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return { static_cast<std::uint16_t>(u >> 16) };
}
inline __nv_bfloat16 __float2bfloat16_rn(float f)
{
    return __float2bfloat16(f);
}
#define SHARDWISE_KERNEL_FN inline
#include "adamw_kernel_body.hpp"
#include "cross_entropy_kernel.hpp"
#include "rotary_qkv_kernel.hpp"
#include "swiglu_kernel.hpp"

using namespace shardwise::runner::kernels;

namespace {

// A [batch, heads, seq, headDim] tensor (last dimension contiguous) as the kernel's view of it.
HeadsView headsView(const at::Tensor& x)
{
    return { x.data_ptr(), x.stride(0), x.stride(1), x.stride(2) };
}

template <int Vec>
void runKernel(const QkvViews& in, const QkvViews& out, const QkvShape& s, const at::Tensor& cos, const at::Tensor& sin,
               bool inverse)
{
    const auto* c = static_cast<const __nv_bfloat16*>(cos.data_ptr());
    const auto* sn = static_cast<const __nv_bfloat16*>(sin.data_ptr());
    const auto total = rotaryQkvWork(s, Vec);
    for (std::int64_t i = 0; i < total; ++i)
        rotaryQkvAt<Vec>(i, in, out, s, c, sn, inverse);
}

bool closeInBf16(const at::Tensor& got, const at::Tensor& want)
{
    // One bf16 rounding of an fp32 result: within 2^-8 relative, plus a little for cancellation.
    const auto g = got.to(at::kFloat);
    return ((g - want).abs() - (1e-3 + want.abs() / 128.0)).max().item<double>() <= 0.0;
}

// got within `relative` of want, elementwise (plus a floor far below any value compared).
bool closeRelative(const at::Tensor& got, const at::Tensor& want, double relative)
{
    const auto w = want.to(at::kDouble);
    return ((got.to(at::kDouble) - w).abs() - (1e-30 + w.abs() * relative)).max().item<double>() <= 0.0;
}

// The AdamW kernel's pack body over [0, n - n % Vec) and its element body over the rest, as the grid
// covers them.
template <typename S, int Vec>
void runAdamW(at::Tensor& p, const at::Tensor& g, at::Tensor& m, at::Tensor& v, at::Tensor* copy, double t,
              const AdamWHyper& h)
{
    const auto s = adamwScalars(h, t);
    const auto n = p.numel();
    auto* pp = static_cast<S*>(p.data_ptr());
    const auto* gp = static_cast<const __nv_bfloat16*>(g.data_ptr());
    auto* mp = static_cast<S*>(m.data_ptr());
    auto* vp = static_cast<S*>(v.data_ptr());
    auto* cp = copy ? static_cast<__nv_bfloat16*>(copy->data_ptr()) : nullptr;
    const std::int64_t packs = n / Vec;
    for (std::int64_t i = 0; i < packs; ++i)
        adamwPackAt<S, __nv_bfloat16, Vec>(i, pp, gp, mp, vp, cp, s);
    for (std::int64_t e = packs * Vec; e < n; ++e)
        adamwElementAt<S, __nv_bfloat16>(e, pp, gp, mp, vp, cp, s);
}

} // namespace

class TestKernelHost : public QObject {
    Q_OBJECT

private slots:
    void kernelMatchesTheComposition_data()
    {
        QTest::addColumn<int>("vec");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<int>("pad");
        QTest::newRow("Qwen2.5-3B heads, 16-byte packs") << 8 << 1 << 64 << 16 << 2 << 128 << 0;
        QTest::newRow("Qwen2.5-0.5B heads in a wider block, 16-byte packs") << 8 << 2 << 37 << 14 << 2 << 64 << 8;
        QTest::newRow("half of 6, one element a thread") << 1 << 1 << 19 << 4 << 4 << 12 << 0;
        QTest::newRow("misaligned rows, one element a thread") << 1 << 2 << 33 << 2 << 1 << 64 << 3;
    }
    void kernelMatchesTheComposition()
    {
        QFETCH(int, vec);
        QFETCH(int, batch);
        QFETCH(int, seq);
        QFETCH(int, heads);
        QFETCH(int, kvHeads);
        QFETCH(int, headDim);
        QFETCH(int, pad);
        at::manual_seed(31);
        const auto bf16 = at::TensorOptions().dtype(at::kBFloat16);
        const auto f64 = at::TensorOptions().dtype(at::kDouble);
        const auto angles = at::outer(at::arange(seq + 3, f64),
                                      at::pow(1e6, -at::arange(0, headDim, 2, f64) / static_cast<double>(headDim)));
        const auto cos = at::cat({ angles, angles }, -1).cos().to(bf16).contiguous();
        const auto sin = at::cat({ angles, angles }, -1).sin().to(bf16).contiguous();
        const std::int64_t width = static_cast<std::int64_t>(heads + 2 * kvHeads) * headDim;
        const auto block = at::randn({ batch, seq, width + pad }).to(bf16);
        const auto qkv = block.narrow(2, 0, width);
        const QkvShape shape { batch, seq, heads, kvHeads, headDim };
        const auto split = [&](const at::Tensor& x) {
            const auto parts = x.split_with_sizes({ heads * headDim, kvHeads * headDim, kvHeads * headDim }, -1);
            return std::vector<at::Tensor> {
                parts[0].view({ batch, seq, heads, headDim }).transpose(1, 2),
                parts[1].view({ batch, seq, kvHeads, headDim }).transpose(1, 2),
                parts[2].view({ batch, seq, kvHeads, headDim }).transpose(1, 2),
            };
        };
        const auto inParts = split(qkv);
        const std::vector<at::Tensor> outParts { at::empty({ batch, seq, heads, headDim }, bf16).transpose(1, 2),
                                                 at::empty({ batch, seq, kvHeads, headDim }, bf16).transpose(1, 2),
                                                 at::empty({ batch, seq, kvHeads, headDim }, bf16).transpose(1, 2) };
        QkvViews in;
        QkvViews out;
        for (int p = 0; p < 3; ++p) {
            in.part[p] = headsView(inParts[static_cast<std::size_t>(p)]);
            out.part[p] = headsView(outParts[static_cast<std::size_t>(p)]);
        }
        const auto run = [&](const QkvViews& from, const QkvViews& to, bool inverse) {
            if (vec == 8)
                runKernel<8>(from, to, shape, cos, sin, inverse);
            else
                runKernel<1>(from, to, shape, cos, sin, inverse);
        };
        run(in, out, false);

        // The composition in fp32 from the same bf16 values, forward and through autograd backward.
        const auto ref = qkv.to(at::kFloat).requires_grad_(true);
        const auto refParts = split(ref);
        const auto h = headDim / 2;
        const auto turn = [&](const at::Tensor& x) {
            const auto rotated = at::cat({ -x.narrow(3, h, h), x.narrow(3, 0, h) }, 3);
            return x * cos.to(at::kFloat).narrow(0, 0, seq) + rotated * sin.to(at::kFloat).narrow(0, 0, seq);
        };
        const auto refQ = turn(refParts[0]);
        const auto refK = turn(refParts[1]);
        QVERIFY(closeInBf16(outParts[0], refQ));
        QVERIFY(closeInBf16(outParts[1], refK));
        QVERIFY(at::equal(outParts[2], inParts[2]));

        // Backward: q's gradient contiguous [batch, heads, seq, dim], k's and v's as [batch, seq, heads,
        // dim] transposed; the projection's gradient [batch, seq, width] contiguous.
        const auto gq = at::randn({ batch, heads, seq, headDim }).to(bf16);
        const auto gk = at::randn({ batch, seq, kvHeads, headDim }).to(bf16).transpose(1, 2);
        const auto gv = at::randn({ batch, seq, kvHeads, headDim }).to(bf16).transpose(1, 2);
        const auto dqkv = at::full({ batch, seq, width }, std::nan(""), bf16);
        const auto dParts = split(dqkv);
        QkvViews gradIn;
        QkvViews gradOut;
        gradIn.part[0] = headsView(gq);
        gradIn.part[1] = headsView(gk);
        gradIn.part[2] = headsView(gv);
        for (int p = 0; p < 3; ++p)
            gradOut.part[p] = headsView(dParts[static_cast<std::size_t>(p)]);
        run(gradIn, gradOut, true);
        torch::autograd::backward({ refQ, refK, refParts[2] },
                                  { gq.to(at::kFloat), gk.to(at::kFloat), gv.to(at::kFloat) });
        QVERIFY2(!at::isnan(dqkv).any().item<bool>(), "an element of the gradient was not written");
        QVERIFY(closeInBf16(dqkv, ref.grad()));
    }

    void swigluMatchesTheComposition_data()
    {
        QTest::addColumn<int>("vec");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("ffn");
        QTest::addColumn<int>("pad");
        QTest::newRow("16-byte packs, contiguous rows") << 8 << 37 << 64 << 0;
        QTest::newRow("16-byte packs, rows of a wider block") << 8 << 9 << 40 << 16;
        QTest::newRow("one element a thread, odd width and stride") << 1 << 7 << 13 << 3;
    }
    void swigluMatchesTheComposition()
    {
        QFETCH(int, vec);
        QFETCH(int, rows);
        QFETCH(int, ffn);
        QFETCH(int, pad);
        at::manual_seed(37);
        const auto bf16 = at::TensorOptions().dtype(at::kBFloat16);
        // gateUp's rows hold the gate's ffn columns, then the up projection's, then pad unused ones.
        const auto block = (at::randn({ rows, 2 * ffn + pad }) * 3.0).to(bf16);
        const auto gateUp = block.narrow(1, 0, 2 * ffn);
        // The pad columns are never read: NaN there must not reach any output.
        block.narrow(1, 2 * ffn, pad).fill_(std::nan(""));
        const std::int64_t stride = block.stride(0);
        const auto* in = static_cast<const __nv_bfloat16*>(block.data_ptr());
        const auto out = at::full({ rows, ffn }, std::nan(""), bf16);
        const auto total = swigluWork(rows, ffn, vec);
        auto* o = static_cast<__nv_bfloat16*>(out.data_ptr());
        for (std::int64_t i = 0; i < total; ++i) {
            if (vec == 8)
                swigluForwardAt<8>(i, in, stride, o, ffn);
            else
                swigluForwardAt<1>(i, in, stride, o, ffn);
        }
        const auto ref = gateUp.to(at::kFloat).requires_grad_(true);
        const auto gate = ref.narrow(1, 0, ffn);
        const auto refOut = gate * at::sigmoid(gate) * ref.narrow(1, ffn, ffn);
        QVERIFY2(!at::isnan(out).any().item<bool>(), "NaN in the output: an element not written, or a pad column read");
        QVERIFY(closeInBf16(out, refOut));

        const auto grad = at::randn({ rows, ffn }).to(bf16);
        const auto dGateUp = at::full({ rows, 2 * ffn }, std::nan(""), bf16);
        const auto* d = static_cast<const __nv_bfloat16*>(grad.data_ptr());
        auto* dg = static_cast<__nv_bfloat16*>(dGateUp.data_ptr());
        for (std::int64_t i = 0; i < total; ++i) {
            if (vec == 8)
                swigluBackwardAt<8>(i, in, stride, d, dg, ffn);
            else
                swigluBackwardAt<1>(i, in, stride, d, dg, ffn);
        }
        torch::autograd::backward({ refOut }, { grad.to(at::kFloat) });
        QVERIFY2(!at::isnan(dGateUp).any().item<bool>(),
                 "NaN in the gradient: an element not written, or a pad column read");
        QVERIFY(closeInBf16(dGateUp, ref.grad()));
    }

    void crossEntropyMatchesTheComposition_data()
    {
        QTest::addColumn<int>("vec");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("vocab");
        // 512 threads a row, as the kernel launches: a vocabulary over 4,096 gives threads more than one
        // pack, one under it leaves threads without any.
        QTest::newRow("16-byte packs, several packs a thread") << 8 << 5 << 8 * 1201;
        QTest::newRow("16-byte packs, idle threads") << 8 << 3 << 8 * 40;
        QTest::newRow("one element a thread, odd vocabulary") << 1 << 4 << 1531;
    }
    void crossEntropyMatchesTheComposition()
    {
        QFETCH(int, vec);
        QFETCH(int, rows);
        QFETCH(int, vocab);
        constexpr int threads = 512;
        at::manual_seed(43);
        const auto logits = (at::randn({ rows, vocab }) * 4.0).to(at::kBFloat16);
        const auto original = logits.to(at::kFloat);
        auto targets = at::randint(0, vocab, { rows }, at::TensorOptions().dtype(at::kLong));
        targets[rows - 1] = -100; // outside [0, vocab): a NaN loss and a gradient without the one-hot term
        const float scale = 1.0f / static_cast<float>(rows);
        std::vector<float> loss(static_cast<std::size_t>(rows));
        for (int r = 0; r < rows; ++r) {
            auto* row = static_cast<__nv_bfloat16*>(logits.data_ptr()) + static_cast<std::int64_t>(r) * vocab;
            const auto target = targets[r].item<std::int64_t>();
            const bool valid = target >= 0 && target < vocab;
            const float targetLogit = valid ? __bfloat162float(row[target]) : std::nanf("");
            MaxSum total { -INFINITY, 0.0f };
            for (int t = 0; t < threads; ++t) {
                const auto part = vec == 8 ? crossEntropyPartial<8>(row, vocab, t * 8, threads * 8)
                                           : crossEntropyPartial<1>(row, vocab, t, threads);
                total = maxSumCombine(total, part);
            }
            const float lse = total.max + std::log(total.sum);
            loss[static_cast<std::size_t>(r)] = lse - targetLogit;
            for (int t = 0; t < threads; ++t) {
                if (vec == 8)
                    crossEntropyGradient<8>(row, vocab, target, lse, scale, t * 8, threads * 8);
                else
                    crossEntropyGradient<1>(row, vocab, target, lse, scale, t, threads);
            }
        }
        const auto logProbs = at::log_softmax(original, 1);
        const auto softmax = logProbs.exp();
        for (int r = 0; r < rows; ++r) {
            const auto target = targets[r].item<std::int64_t>();
            const float got = loss[static_cast<std::size_t>(r)];
            if (target < 0) {
                QVERIFY2(std::isnan(got), "a target outside the vocabulary must give a NaN loss");
                continue;
            }
            const double want = -logProbs[r][target].item<double>();
            QVERIFY2(std::abs(got - want) <= 1e-4 * std::abs(want) + 1e-5,
                     qPrintable(QStringLiteral("row %1: loss %2, want %3").arg(r).arg(got).arg(want)));
        }
        auto wantGrad = softmax * scale;
        for (int r = 0; r < rows; ++r) {
            const auto target = targets[r].item<std::int64_t>();
            if (target >= 0)
                wantGrad[r][target] -= scale;
        }
        QVERIFY(closeRelative(logits, wantGrad, 1.0 / 128.0 + 1e-3));
    }

    void adamwMatchesTorchOptimAdamW_data()
    {
        QTest::addColumn<bool>("master");
        QTest::addColumn<int>("vec");
        QTest::addColumn<int>("n");
        QTest::newRow("bf16 state, 16-byte packs and a tail of 5") << false << 8 << 8 * 37 + 5;
        QTest::newRow("bf16 state, one element a thread") << false << 1 << 61;
        QTest::newRow("fp32 master and bf16 copy, 16-byte packs and a tail of 3") << true << 4 << 4 * 50 + 3;
        QTest::newRow("fp32 master and bf16 copy, one element a thread") << true << 1 << 29;
    }
    void adamwMatchesTorchOptimAdamW()
    {
        QFETCH(bool, master);
        QFETCH(int, vec);
        QFETCH(int, n);
        at::manual_seed(41);
        AdamWHyper h;
        h.lr = 3e-3;
        h.weightDecay = 0.1;
        const auto stateType = master ? at::kFloat : at::kBFloat16;
        auto p = at::randn({ n }).to(stateType);
        auto m = at::zeros({ n }, stateType);
        auto v = at::zeros({ n }, stateType);
        auto copy = at::full({ n }, std::nan(""), at::TensorOptions().dtype(at::kBFloat16));
        for (int t = 1; t <= 3; ++t) {
            // Gradients over several scales, so that the moments and the step cover a wide range.
            const auto g
                = (at::randn({ n }) * at::pow(10.0, at::randint(-3, 2, { n }).to(at::kFloat))).to(at::kBFloat16);
            // torch.optim.AdamW's single-tensor step, in double from the same stored values.
            auto rp = p.to(at::kDouble);
            auto rm = m.to(at::kDouble);
            auto rv = v.to(at::kDouble);
            const auto rg = g.to(at::kDouble);
            rp.mul_(1.0 - h.lr * h.weightDecay);
            rm.lerp_(rg, 1.0 - h.beta1);
            rv.mul_(h.beta2).addcmul_(rg, rg, 1.0 - h.beta2);
            const double stepSize = h.lr / (1.0 - std::pow(h.beta1, t));
            const double bias2Sqrt = std::sqrt(1.0 - std::pow(h.beta2, t));
            const auto denom = (rv.sqrt() / bias2Sqrt).add_(h.eps);
            rp.addcdiv_(rm, denom, -stepSize);

            if (master) {
                if (vec == 4)
                    runAdamW<float, 4>(p, g, m, v, &copy, t, h);
                else
                    runAdamW<float, 1>(p, g, m, v, &copy, t, h);
            } else if (vec == 8) {
                runAdamW<__nv_bfloat16, 8>(p, g, m, v, nullptr, t, h);
            } else {
                runAdamW<__nv_bfloat16, 1>(p, g, m, v, nullptr, t, h);
            }
            // fp32 arithmetic: within a few fp32 roundings of double; bf16 state: one bf16 rounding more.
            const double tolerance = master ? 1e-5 : 1.0 / 128.0;
            QVERIFY2(closeRelative(p, rp, tolerance), qPrintable(QStringLiteral("parameter, step %1").arg(t)));
            QVERIFY2(closeRelative(m, rm, tolerance), qPrintable(QStringLiteral("first moment, step %1").arg(t)));
            QVERIFY2(closeRelative(v, rv, tolerance), qPrintable(QStringLiteral("second moment, step %1").arg(t)));
            if (master)
                QVERIFY2(at::equal(copy, p.to(at::kBFloat16)), "the bf16 copy is not the master rounded to nearest");
        }
    }
};

QTEST_GUILESS_MAIN(TestKernelHost)
#include "test_kernel_host.moc"
