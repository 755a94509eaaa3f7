#include "layer_issue_probe.hpp"

#include "decoder_model.hpp"
#include "flat_buffer.hpp"
#include "model_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardwise::runner {

namespace {

constexpr std::int64_t kSeqLen = 128;
constexpr std::int64_t kVocab = 256;

ModelSpec probeLayerSpec(std::int64_t layers)
{
    ModelSpec m;
    m.id = "layer-issue-probe";
    m.name = "layer issue probe";
    m.family = "qwen2";
    m.layers = layers;
    m.hidden = 256;
    m.ffn = 512;
    m.heads = 4;
    m.kvHeads = 2;
    m.headDim = 64;
    m.vocab = kVocab;
    m.tiedEmbeddings = true;
    m.qkvBias = true; // Qwen2's layer, whose three extra bias adds and their backward count too
    m.ropeTheta = 1e6;
    m.maxPosition = kSeqLen;
    return m;
}

// The root unit and one layer unit, every decoder layer handed the same layer: the issue cost per
// layer does not depend on whose weights it reads. No unit is sharded and no hook is attached around
// a layer: a strategy's per-unit work is the planner's unit_collective_overhead_s, not this figure.
class SharedLayerHooks final : public UnitHooks {
public:
    SharedLayerHooks(const ModelSpec& model, const at::TensorOptions& compute)
    {
        ModelSpec one = model;
        one.layers = 1;
        auto layouts = buildUnitLayouts(one, 1);
        for (std::size_t u = 0; u < 2; ++u) {
            Unit& unit = m_units[u];
            unit.layout = std::move(layouts.at(u));
            unit.params.allocate(unit.layout.padded, compute);
            unit.grads.allocate(unit.layout.padded, compute);
            unit.params.tensor().normal_(0.0, 0.02);
            unit.grads.tensor().zero_();
            unit.views = unit.params.views(unit.layout);
            const auto gradViews = unit.grads.views(unit.layout);
            for (std::size_t p = 0; p < unit.views.size(); ++p) {
                if (unit.layout.params[p].init == ParamInit::Ones)
                    unit.views[p].fill_(1.0);
                else if (unit.layout.params[p].init == ParamInit::Zeros)
                    unit.views[p].zero_();
                unit.views[p].requires_grad_(true);
                unit.views[p].mutable_grad() = gradViews[p];
            }
        }
    }

    // The head's sink must hold zeros when the loss accumulates into it (head_loss.hpp).
    void zeroGradients()
    {
        for (Unit& u : m_units)
            u.grads.tensor().zero_();
    }

    const std::vector<at::Tensor>& parameters(std::size_t unit) override { return of(unit).views; }

    GradientSink gradientSink(std::size_t unit, std::size_t slot) override
    {
        return { of(unit).views.at(slot).grad(), nullptr };
    }

    NormWeight normWeight(std::size_t unit, std::size_t slot) override
    {
        const Unit& u = of(unit);
        const auto& s = u.layout.params.at(slot);
        return { u.params.span(s.offset, { s.numel }), u.grads.span(s.offset, { s.numel }), nullptr };
    }

    LinearWeight linearWeight(std::size_t unit, std::size_t first, std::size_t count,
                              std::optional<std::size_t> biasFirst) override
    {
        const Unit& u = of(unit);
        const auto& slots = u.layout.params;
        const auto& head = slots.at(first);
        std::int64_t rows = 0;
        for (std::size_t i = first; i < first + count; ++i)
            rows += slots.at(i).shape.at(0);
        LinearWeight w;
        w.weight = u.params.span(head.offset, { rows, head.shape.at(1) });
        w.weightGrad = u.grads.span(head.offset, { rows, head.shape.at(1) });
        if (biasFirst && slots.at(*biasFirst).numel > 0) {
            w.bias = u.params.span(slots.at(*biasFirst).offset, { rows });
            w.biasGrad = u.grads.span(slots.at(*biasFirst).offset, { rows });
        }
        return w;
    }

    at::Tensor enterLayer(std::size_t, const at::Tensor& hidden) override { return hidden; }
    at::Tensor leaveLayer(std::size_t, const at::Tensor& hidden) override { return hidden; }

private:
    struct Unit {
        UnitLayout layout;
        FlatBuffer params;
        FlatBuffer grads;
        std::vector<at::Tensor> views;
    };

    Unit& of(std::size_t unit) { return m_units[std::min<std::size_t>(unit, 1)]; }

    Unit m_units[2];
};

} // namespace

struct LayerIssueStack::State {
    State(const at::Device& device, std::int64_t layers)
        : compute(at::TensorOptions().device(device).dtype(device.is_cuda() ? at::kBFloat16 : at::kFloat))
        , spec(probeLayerSpec(layers))
        , hooks(spec, compute)
        , model(spec, kSeqLen, compute)
        , inputs(at::randint(kVocab, { 1, kSeqLen }, at::TensorOptions().device(device).dtype(at::kLong)))
        , targets(at::randint(kVocab, { 1, kSeqLen }, inputs.options()))
    {
    }

    at::TensorOptions compute;
    ModelSpec spec;
    SharedLayerHooks hooks;
    DecoderModel model;
    at::Tensor inputs;
    at::Tensor targets;
};

LayerIssueStack::LayerIssueStack(const at::Device& device, std::int64_t layers)
{
    if (layers < 1)
        throw std::invalid_argument("LayerIssueStack: layers must be at least 1, got " + std::to_string(layers));
    m_state = std::make_unique<State>(device, layers);
}

LayerIssueStack::~LayerIssueStack() = default;

void LayerIssueStack::step()
{
    State& s = *m_state;
    s.hooks.zeroGradients();
    auto loss = s.model.loss(s.inputs, s.targets, s.hooks);
    loss.backward();
}

} // namespace shardwise::runner
