// mbstep — Coulomb joint friction: shape function and deck input (friction.hpp).
#include "friction.hpp"

#include <cmath>

#include "mbstep/io/deck_input.hpp"

namespace mbstep::joints {

double Friction::Shape(double v, double& ds) const {
    if (v_eps > 0.0) {  // (3), regularised
        const double s = std::tanh(v / v_eps);
        ds = (1.0 - s * s) / v_eps;
        return s;
    }
    ds = 0.0;
    return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0);
}

Friction ReadFriction(DeckInput& in, bool with_radius, const std::string& joint) {
    Friction f;
    f.active = true;
    if (with_radius) {
        const SourceLocation at = in.Where();
        f.radius = in.GetReal("friction average radius");
        if (!(std::isfinite(f.radius) && f.radius > 0.0))
            in.Fail(at, joint + ": the friction average radius must be positive");
    }
    if (in.IsKeyword("preload")) {
        const SourceLocation at = in.Where();
        f.preload = in.GetReal("friction preload");
        if (!(std::isfinite(f.preload) && f.preload >= 0.0))
            in.Fail(at, joint + ": the friction preload must be non-negative");
    }
    const SourceLocation model_at = in.Where();
    if (in.IsKeyword("modlugre") || in.IsKeyword("discrete coulomb"))
        in.Fail(model_at, joint +
                              ": this friction model is not supported; accepted: coulomb, <mu> "
                              "[, regularization, <v_eps>] (Coulomb friction from the previous "
                              "step's normal force)");
    in.GetKeyword("friction model", {"coulomb"});
    const SourceLocation mu_at = in.Where();
    f.mu = in.GetReal("friction coefficient");
    if (!(std::isfinite(f.mu) && f.mu >= 0.0))
        in.Fail(mu_at, joint + ": the friction coefficient must be non-negative");
    if (in.IsKeyword("regularization")) {
        const SourceLocation at = in.Where();
        f.v_eps = in.GetReal("regularization velocity");
        if (!(std::isfinite(f.v_eps) && f.v_eps > 0.0))
            in.Fail(at, joint + ": the regularization velocity must be positive");
    }
    const SourceLocation shape_at = in.Where();
    if (in.IsKeyword("simple plane hinge"))
        in.Fail(shape_at, joint +
                              ": the friction shape function 'simple plane hinge' is not "
                              "supported; accepted: simple");
    in.IsKeyword("simple");
    return f;
}

}  // namespace mbstep::joints
