#include "layer_recompute.hpp"

#include <torch/autograd.h>
#include <torch/custom_class.h>

namespace shardwise::runner {

namespace {

// The layer's forward in a form saved_data can hold (an IValue capsule), so it lives exactly as long
// as the node that needs it.
struct LayerRecipe : torch::CustomClassHolder {
    explicit LayerRecipe(LayerForward f)
        : forward(std::move(f))
    {
    }
    LayerForward forward;
};

struct RecomputedLayer : torch::autograd::Function<RecomputedLayer> {
    // Runs with grad mode off (custom functions' forwards always do): the layer records no graph and
    // its ops keep nothing.
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& input, const LayerForward& f)
    {
        ctx->save_for_backward({ input });
        auto recipe = c10::make_intrusive<LayerRecipe>(f);
        ctx->saved_data["recipe"] = c10::IValue::make_capsule(recipe);
        return recipe->forward(input);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables()[0];
        const auto recipe = c10::static_intrusive_pointer_cast<LayerRecipe>(ctx->saved_data["recipe"].toCapsule());
        ctx->saved_data.erase("recipe"); // saved_data outlives the backward; the closure need not
        // A leaf over the same memory: the nested backward stops here and leaves the input's gradient
        // in it, while the layer's parameters (the norm weights) accumulate theirs as in a plain step
        // and the projections write theirs into the gradient buffers (linear.hpp).
        auto input = saved.detach().requires_grad_(true);
        at::Tensor output;
        {
            at::AutoGradMode recording(true);
            output = recipe->forward(input);
        }
        torch::autograd::backward({ output }, { grads[0] });
        return { input.grad(), at::Tensor() };
    }
};

} // namespace

at::Tensor recomputedInBackward(const at::Tensor& input, LayerForward forward)
{
    return RecomputedLayer::apply(input, forward);
}

} // namespace shardwise::runner
