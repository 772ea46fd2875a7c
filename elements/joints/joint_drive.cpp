// mbstep — vector drives of the joint family (joint_drive.hpp).
#include "joint_drive.hpp"

#include <string>

#include "mbstep/io/deck_input.hpp"

namespace mbstep::joints {

JointVec3Drive JointVec3Drive::Read(DeckInput& in, const char* what) {
    JointVec3Drive d;
    if (in.IsKeyword("null") || in.IsKeyword("zero")) return d;  // eq. (1)
    if (in.IsKeyword("component")) {
        for (int i = 0; i < 3; ++i) {
            if (in.IsKeyword("inactive")) continue;
            d.component_[i] =
                in.GetDrive(std::string(what) + " component " + std::to_string(i + 1));
        }
        return d;  // eq. (3)
    }
    if (in.IsKeyword("array"))
        in.Fail(in.Where(), std::string("the 'array' form of ") + what +
                                " is not supported; use null, single or component");
    in.IsKeyword("single");  // MBDyn: the keyword may be omitted
    const SourceLocation at = in.Where();
    d.direction_ = in.GetVec3(std::string(what) + " direction");
    if (!d.direction_.allFinite()) in.Fail(at, std::string(what) + " direction is not finite");
    d.single_ = in.GetDrive(std::string(what) + " drive");
    return d;  // eq. (2)
}

}  // namespace mbstep::joints
