// mbstep — uniform gravity field (gravity.hpp for the equations).
#include "gravity.hpp"

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::gravity {

std::unique_ptr<Element> ReadUniformGravity(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    in.IsKeyword("uniform");  // optional; the deck reader may already have consumed it
    if (in.IsKeyword("central"))
        in.Fail(where, "central gravity fields are not supported; use 'uniform'");
    if (in.IsKeyword("component") || in.IsKeyword("array"))
        in.Fail(where,
                "only the single form of the gravity acceleration is supported: "
                "[single,] <direction>, <drive>");
    in.IsKeyword("single");
    const SourceLocation dir_at = in.Where();
    const Vec3 direction = in.GetDirection(FrameState{}, "gravity direction");  // eq. (1)
    if (!direction.allFinite()) in.Fail(dir_at, "gravity direction is not finite");
    DrivePtr magnitude = in.GetDrive("gravity magnitude");
    in.SetGravity(GravityField{direction, std::move(magnitude)});

    auto e = std::make_unique<UniformGravity>(args.label);
    e->set_where(where);
    return e;
}

}  // namespace mbstep::gravity
