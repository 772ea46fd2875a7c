// mbstep — vector-valued drive of time (vec3_drive.hpp).
#include "vec3_drive.hpp"

#include <string>

#include "mbstep/io/deck_input.hpp"

namespace mbstep::forces {

Vec3Drive ReadVec3Drive(DeckInput& in, const FrameState& rf, const char* what) {
    if (in.IsKeyword("component")) {
        DrivePtr a[3];
        for (int i = 0; i < 3; ++i) {
            if (in.IsKeyword("inactive")) continue;
            a[i] = in.GetDrive(std::string(what) + " component " + std::to_string(i + 1));
        }
        return Vec3Drive(a[0], a[1], a[2]);  // eq. (2)
    }
    if (in.IsKeyword("array"))
        in.Fail(in.Where(), std::string("the 'array' form of ") + what +
                                " is not supported; use single or component");
    in.IsKeyword("single");
    const SourceLocation at = in.Where();
    // `null` alone (end of statement) is MBDyn's null template drive, eq. (3); otherwise it is
    // the null vector of the single form and a drive follows.
    const Vec3 d = in.GetDirection(rf, std::string(what) + " direction");
    if (!d.allFinite()) in.Fail(at, std::string(what) + " direction is not finite");
    if (!in.HasArg() && d.isZero(0.0)) return Vec3Drive();
    DrivePtr a = in.GetDrive(std::string(what) + " magnitude");
    return Vec3Drive(d, std::move(a));  // eq. (1)
}

}  // namespace mbstep::forces
