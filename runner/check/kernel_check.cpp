// Checks the fused CUDA kernels (src/fused_kernels.cu, adamw_kernel.cu, rmsnorm_kernel.cu) on this machine's GPU
// against the same maths in fp32 through ATen, forward and backward, including strided inputs and widths that take the
// scalar path. Exit 0: every comparison within bf16 rounding; 1: a mismatch (printed); 77: no CUDA device.
//
//   build-gpu/bin/shardwise-runner-kernel-check

#include "adamw.hpp"
#include "fused_kernels.hpp"
#include "fused_norm.hpp"
#include "fused_path.hpp"
#include "rotary.hpp"
#include "swiglu.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/autograd.h>
#include <torch/cuda.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>

namespace {

using namespace shardwise::runner;

int failures = 0;

// |got - want| <= atol + rtol * |want| everywhere; a bf16 result rounded once is within 2^-8 relative.
void expectClose(const std::string& what, const at::Tensor& got, const at::Tensor& want, double rtol = 1.0 / 128,
                 double atol = 1e-4)
{
    const auto g = got.to(at::kFloat);
    const auto w = want.to(at::kFloat);
    const auto excess = ((g - w).abs() - (atol + rtol * w.abs())).max().item<double>();
    const auto maxAbs = (g - w).abs().max().item<double>();
    const bool ok = excess <= 0.0 && got.sizes() == want.sizes();
    std::printf("%-48s max |diff| %.3e  %s\n", what.c_str(), maxAbs, ok ? "ok" : "MISMATCH");
    if (!ok)
        ++failures;
}

void checkSwiglu(std::int64_t rows, std::int64_t ffn, std::int64_t pad)
{
    const auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
    // Rows padded by `pad` elements: a row stride other than the width, as a view of a wider block.
    const auto block = at::randn({ rows, 2 * ffn + pad }, bf16) * 3;
    const auto gateUp = block.narrow(1, 0, 2 * ffn).detach().requires_grad_(true);
    const auto grad = at::randn({ rows, ffn }, bf16);

    const auto out = swiglu(gateUp);
    out.backward(grad);

    const auto ref = gateUp.detach().to(at::kFloat).requires_grad_(true);
    const auto refOut = at::silu(ref.narrow(1, 0, ffn)) * ref.narrow(1, ffn, ffn);
    refOut.backward(grad.to(at::kFloat));

    const auto name
        = "swiglu rows " + std::to_string(rows) + " ffn " + std::to_string(ffn) + " pad " + std::to_string(pad);
    expectClose(name + " forward", out, refOut);
    expectClose(name + " backward", gateUp.grad(), ref.grad(), 1.0 / 64, 1e-3);
}

// rotaryQkv against the rotation in fp32 through ATen, forward and backward, on qkv as the decoder makes
// it (the fused projection's output, rows `pad` elements wider than q, k and v: a row stride other than
// the width) and with q's gradient handed in a layout of its own (contiguous [batch, heads, seq, dim]).
void checkRotary(std::int64_t batch, std::int64_t seq, std::int64_t heads, std::int64_t kvHeads, std::int64_t headDim,
                 std::int64_t pad)
{
    const auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
    const auto f64 = at::TensorOptions().dtype(at::kDouble);
    const auto half = at::arange(0, headDim, 2, f64) / static_cast<double>(headDim);
    const auto angles = at::outer(at::arange(seq + 5, f64), at::pow(1e6, -half));
    const auto emb = at::cat({ angles, angles }, -1);
    const auto cos = emb.cos().to(bf16);
    const auto sin = emb.sin().to(bf16);

    const auto width = (heads + 2 * kvHeads) * headDim;
    const auto block = at::randn({ batch, seq, width + pad }, bf16);
    const auto qkv = block.narrow(2, 0, width).detach().requires_grad_(true);
    const auto got = rotaryQkv(qkv, heads, kvHeads, headDim, cos, sin);
    const auto gq = at::randn({ batch, heads, seq, headDim }, bf16);
    const auto gk = at::randn({ batch, seq, kvHeads, headDim }, bf16).transpose(1, 2);
    const auto gv = at::randn({ batch, kvHeads, seq, headDim }, bf16);
    torch::autograd::backward({ got.q, got.k, got.v }, { gq, gk, gv });

    const auto ref = qkv.detach().to(at::kFloat).requires_grad_(true);
    const auto parts = ref.split_with_sizes({ heads * headDim, kvHeads * headDim, kvHeads * headDim }, -1);
    const auto turn = [&](const at::Tensor& x, std::int64_t n) {
        const auto v = x.reshape({ batch, seq, n, headDim }).transpose(1, 2);
        const auto h = headDim / 2;
        const auto rotated = at::cat({ -v.narrow(3, h, h), v.narrow(3, 0, h) }, 3);
        return v * cos.to(at::kFloat).narrow(0, 0, seq) + rotated * sin.to(at::kFloat).narrow(0, 0, seq);
    };
    const auto refQ = turn(parts[0], heads);
    const auto refK = turn(parts[1], kvHeads);
    const auto refV = parts[2].reshape({ batch, seq, kvHeads, headDim }).transpose(1, 2);
    torch::autograd::backward({ refQ, refK, refV }, { gq.to(at::kFloat), gk.to(at::kFloat), gv.to(at::kFloat) });

    const auto name = "rotary q/k/v b " + std::to_string(batch) + " seq " + std::to_string(seq) + " heads "
        + std::to_string(heads) + "/" + std::to_string(kvHeads) + " dim " + std::to_string(headDim) + " pad "
        + std::to_string(pad);
    expectClose(name + " q", got.q, refQ);
    expectClose(name + " k", got.k, refK);
    expectClose(name + " v", got.v, refV, 0.0, 0.0);
    expectClose(name + " backward", qkv.grad(), ref.grad());
}

void checkCrossEntropy(std::int64_t rows, std::int64_t vocab)
{
    const auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
    const auto logits = at::randn({ rows, vocab }, bf16) * 4;
    const auto targets = at::randint(0, vocab, { rows }, at::TensorOptions().device(at::kCUDA).dtype(at::kLong));
    const double scale = 1.0 / static_cast<double>(rows + 3);

    const auto wide = logits.to(at::kFloat);
    const auto lse = at::logsumexp(wide, 1, /*keepdim=*/true);
    const auto refLoss = (lse - wide.gather(1, targets.unsqueeze(1))).squeeze(1);
    auto refGrad = (wide - lse).exp();
    refGrad.scatter_add_(1, targets.unsqueeze(1), at::full({ rows, 1 }, -1.0, refGrad.options()));
    refGrad.mul_(scale);

    auto got = logits.clone();
    auto rowLoss = at::empty({ rows }, got.options().dtype(at::kFloat));
    kernels::crossEntropyInPlace(got.data_ptr(), targets.data_ptr<std::int64_t>(), rowLoss.data_ptr<float>(), rows,
                                 vocab, static_cast<float>(scale), at::cuda::getCurrentCUDAStream().stream());
    const auto name = "cross-entropy rows " + std::to_string(rows) + " vocab " + std::to_string(vocab);
    expectClose(name + " loss", rowLoss, refLoss, 1e-5, 1e-5);
    // Gradients are tiny (probabilities x scale): the absolute floor scales with them.
    expectClose(name + " gradient", got, refGrad, 1.0 / 128, 1e-9);
}

} // namespace

// The device AdamW (adamw kernel) against adamwStep's ATen ops in fp32 over three steps: pure bf16 state
// (each stored value rounded once from the fp32 result of the same inputs), and an fp32 master with a
// bf16 gradient and the rounded copy. n odd: the packs and the tail; offset: misaligned, the scalar path;
// maxBlocks: a capped grid (the step beside the backward).
void checkAdamW(std::int64_t n, std::int64_t offset, bool master, int maxBlocks = 0)
{
    const auto cuda = at::TensorOptions().device(at::kCUDA);
    const auto state = cuda.dtype(master ? at::kFloat : at::kBFloat16);
    const auto slice = [&](const at::Tensor& t) { return t.narrow(0, offset, n); };
    auto param = slice(at::randn({ n + offset }, state));
    auto m = slice(at::zeros({ n + offset }, state));
    auto v = slice(at::zeros({ n + offset }, state));
    auto copy = master ? slice(at::zeros({ n + offset }, cuda.dtype(at::kBFloat16))) : at::Tensor();
    AdamWSettings s;
    s.lr = 0.02;
    const auto step = at::zeros({}, cuda.dtype(at::kFloat));
    const auto name = std::string("adamw ") + (master ? "fp32 master" : "bf16") + " n " + std::to_string(n) + " offset "
        + std::to_string(offset) + (maxBlocks > 0 ? " blocks " + std::to_string(maxBlocks) : "");
    bool ran = true;
    for (int t = 1; t <= 3; ++t) {
        const auto grad = slice(at::randn({ n + offset }, cuda.dtype(at::kBFloat16)));
        auto refParam = param.to(at::kFloat), refM = m.to(at::kFloat), refV = v.to(at::kFloat);
        adamwStep(refParam, grad.to(at::kFloat), refM, refV, t, s);
        step.fill_(static_cast<double>(t));
        ran = ran && fusedDeviceAdamW(param, grad, m, v, copy, step, s, maxBlocks);
        // Each step starts from the kernel's own stored state, so the comparison is one step's rounding.
        expectClose(name + " step " + std::to_string(t) + " param", param, refParam, master ? 1e-6 : 1.0 / 128, 1e-6);
        expectClose(name + " step " + std::to_string(t) + " exp_avg", m, refM, master ? 1e-6 : 1.0 / 128, 1e-7);
        expectClose(name + " step " + std::to_string(t) + " exp_avg_sq", v, refV, master ? 1e-5 : 1.0 / 128, 1e-9);
        if (master)
            expectClose(name + " step " + std::to_string(t) + " bf16 copy", copy, param.to(at::kBFloat16), 0.0, 0.0);
    }
    if (!ran) {
        std::printf("%-48s the fused AdamW did not apply  MISMATCH\n", name.c_str());
        ++failures;
    }
}

// The fused RMSNorm (fused_norm.hpp) against fp32 autograd through the same maths: with the residual
// add (h must be exactly the bf16 add's), without it, the weight's gradient overwritten (a fresh range)
// or added to what the buffer holds, and the projections' recomputation bit-identical to the forward.
void checkRmsNorm(std::int64_t rows, std::int64_t hidden, bool residual, bool overwrite, bool misalignedWeight = false)
{
    const auto bf16 = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
    constexpr double eps = 1e-6;
    const auto x = at::randn({ 1, rows, hidden }, bf16).requires_grad_(true);
    const auto r = (at::randn({ 1, rows, hidden }, bf16) * 0.5).requires_grad_(true);
    // A norm's slot starts wherever the unit's slots before it end: possibly not on 16 bytes.
    const std::int64_t offset = misalignedWeight ? 1 : 0;
    const auto weight = (1 + 0.1 * at::randn({ hidden + offset }, bf16)).narrow(0, offset, hidden);
    const auto dn = at::randn({ 1, rows, hidden }, bf16);
    const auto dres = at::randn({ 1, rows, hidden }, bf16);
    // A fresh range holds what the allocator left (here 7s); an accumulating one its earlier sum.
    auto grad = overwrite ? at::full({ hidden }, 7.0, bf16) : at::randn({ hidden }, bf16);
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

    const auto sum = residual ? (x.detach() + r.detach()) : x.detach(); // the bf16 add, rounded once
    const auto ref = sum.to(at::kFloat).requires_grad_(true);
    const auto refWeight = weight.to(at::kFloat).requires_grad_(true);
    const auto refN = ref * at::rsqrt(ref.pow(2).mean(-1, true) + eps) * refWeight;
    refN.backward(dn.to(at::kFloat));
    const auto wantDx = residual ? ref.grad() + dres.to(at::kFloat) : ref.grad();
    const auto wantDw = overwrite ? refWeight.grad() : refWeight.grad() + before.to(at::kFloat);

    const auto name = std::string("rmsnorm ") + (residual ? "residual " : "") + "rows " + std::to_string(rows)
        + " hidden " + std::to_string(hidden) + (overwrite ? " overwrite" : " accumulate")
        + (misalignedWeight ? " misaligned weight" : "");
    if (residual)
        expectClose(name + " h", h, sum, 0.0, 0.0);
    expectClose(name + " forward", n, refN);
    expectClose(name + " recomputed", fusedRmsNormValue(h.detach(), weight, eps), n, 0.0, 0.0);
    expectClose(name + " backward", x.grad(), wantDx, 1.0 / 64, 1e-3);
    if (residual)
        expectClose(name + " backward (residual)", r.grad(), wantDx, 1.0 / 64, 1e-3);
    // A sum over the rows: fp32 partial sums in another order, then one bf16 rounding.
    expectClose(name + " weight gradient", grad, wantDw, 1.0 / 64, 0.05);
    if (overwrite && unwritten != 0) {
        std::printf("%-48s the unwritten flag was not cleared  MISMATCH\n", name.c_str());
        ++failures;
    }
}

int main()
{
    if (!torch::cuda::is_available()) {
        std::printf("no CUDA device: nothing to check\n");
        return 77;
    }
    if (!fusedKernelsEnabled()) {
        std::printf("fused kernels are turned off (SHARDWISE_FUSED_KERNELS=0)\n");
        return 1;
    }
    at::manual_seed(7);
    checkSwiglu(2051, 11008, 0);         // the 3B shape's width, 16-byte path, an odd row count
    checkSwiglu(300, 11008, 8);          // rows of a wider block
    checkSwiglu(33, 37, 0);              // odd width: the scalar path
    checkSwiglu(17, 64, 3);              // misaligned rows: the scalar path
    checkRotary(1, 2048, 16, 2, 128, 0); // Qwen2.5-3B's heads: the 16-byte path
    checkRotary(2, 37, 14, 2, 64, 8);    // Qwen2.5-0.5B's, two sequences in rows of a wider block
    checkRotary(1, 19, 4, 4, 12, 0);     // a half of 6: the scalar path
    checkRotary(1, 33, 2, 1, 64, 3);     // misaligned rows: the scalar path
    checkCrossEntropy(441, 151936);      // a Qwen2.5 head chunk: the 16-byte path
    checkCrossEntropy(7, 1001);          // odd vocabulary: the scalar path
    checkAdamW(1'000'003, 0, false);     // bf16 state: 8-wide packs and a tail
    checkAdamW(1'000'003, 0, true);      // fp32 master: 4-wide packs, the bf16 copy
    checkAdamW(4'099, 3, false);         // misaligned: the scalar path
    checkAdamW(4'099, 1, true);
    checkAdamW(1'000'003, 0, false, 3);       // a capped grid: every block strides over many packs
    checkRmsNorm(2048, 2048, true, true);     // Qwen2.5-3B's rows: one pack per thread
    checkRmsNorm(2048, 2048, false, false);   // the input norm, accumulating into a gradient
    checkRmsNorm(301, 896, true, false);      // Qwen2.5-0.5B's width, rows not a multiple of the blocks
    checkRmsNorm(64, 3584, true, true);       // Qwen2.5-7B's width: two packs per thread
    checkRmsNorm(33, 8192, false, true);      // the widest the kernel takes: four packs per thread
    checkRmsNorm(1, 8, true, true);           // one row, one pack
    checkRmsNorm(64, 896, true, false, true); // a weight slot not on 16 bytes: read from an aligned copy
    std::printf("%s\n", failures == 0 ? "all fused kernels match" : "fused kernels MISMATCH");
    return failures == 0 ? 0 : 1;
}
