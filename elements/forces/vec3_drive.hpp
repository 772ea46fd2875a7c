// mbstep — vector-valued drive of time, MBDyn's TplDriveCaller<Vec3>.
//
//   (1) single:     v(t) = d * a(t)                      d a constant vector, a(t) a drive
//   (2) component:  v(t) = (a_1(t), a_2(t), a_3(t))      `inactive` components are zero
//   (3) null:       v(t) = 0
//
// Deck syntax [MBDyn input manual, section "Template drive caller" (TplDriveCaller<Vec3>)]:
//   [ single, ] <vector>, <drive> | component, <drive|inactive> x 3 | null
// The vector of the single form may carry `reference, <frame>, ...`; it is returned in the
// frame passed to the reader (global for absolute loads, node frame for follower loads).
#pragma once

#include "mbstep/common.hpp"
#include "mbstep/model/drive.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {
class DeckInput;
}

namespace mbstep::forces {

class Vec3Drive {
  public:
    Vec3Drive() = default;
    /// (1)
    Vec3Drive(const Vec3& direction, DrivePtr magnitude)
        : direction_(direction), magnitude_(std::move(magnitude)) {}
    /// (2); null entries are inactive components.
    Vec3Drive(DrivePtr a1, DrivePtr a2, DrivePtr a3)
        : component_{a1, a2, a3}, is_component_(true) {}

    Vec3 Value(double t) const {
        if (is_component_) {
            Vec3 v;
            for (int i = 0; i < 3; ++i) v[i] = component_[i] ? component_[i]->Value(t) : 0.0;
            return v;  // eq. (2)
        }
        return magnitude_ ? Vec3(direction_ * magnitude_->Value(t)) : Vec3::Zero();  // (1), (3)
    }

  private:
    Vec3 direction_{Vec3::Zero()};
    DrivePtr magnitude_;
    DrivePtr component_[3];
    bool is_component_{false};
};

/// Reads (1)-(3); the vector of (1) is returned in frame rf.
Vec3Drive ReadVec3Drive(DeckInput& in, const FrameState& rf, const char* what);

}  // namespace mbstep::forces
