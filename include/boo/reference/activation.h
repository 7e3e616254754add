// The activations of ops::Activation in double precision: the definition kernels are checked
// against (erf gelu, tanh-approximated gelu, silu = x * sigmoid(x), relu6 = min(max(x, 0), 6)).
#pragma once

#include "boo/ops/activation.h"

namespace boo::reference {

double apply_activation(ops::Activation a, double x);

}  // namespace boo::reference
