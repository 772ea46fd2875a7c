// mbstep — vector drives of the joint family (MBDyn's TplDriveCaller<Vec3>), used for imposed
// relative positions and rotations (total joint, total pin joint, drive hinge).
//
//   (1) null:       v(t) = 0
//   (2) single:     v(t) = d a(t)                      d a constant vector, a(t) a drive
//   (3) component:  v(t) = (a_1(t), a_2(t), a_3(t))    `inactive` components are zero
//
// Deck syntax [MBDyn input manual, "Template drive caller"]:
//   null | zero | [single,] <vector>, <drive> | component, { <drive> | inactive } x 3
#pragma once

#include <array>

#include "mbstep/common.hpp"
#include "mbstep/model/drive.hpp"

namespace mbstep {
class DeckInput;
}

namespace mbstep::joints {

class JointVec3Drive {
  public:
    Vec3 Value(double t) const {
        Vec3 v = Vec3::Zero();
        if (single_) return direction_ * single_->Value(t);  // eq. (2)
        for (int i = 0; i < 3; ++i)
            if (component_[i]) v[i] = component_[i]->Value(t);  // eq. (3)
        return v;
    }
    bool IsNull() const { return !single_ && !component_[0] && !component_[1] && !component_[2]; }

    /// Reads (1)-(3) at the current argument.
    static JointVec3Drive Read(DeckInput& in, const char* what);

  private:
    Vec3 direction_{Vec3::Zero()};
    DrivePtr single_;
    std::array<DrivePtr, 3> component_;
};

}  // namespace mbstep::joints
