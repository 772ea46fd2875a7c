#include "mbstep/formulation/formulation.hpp"

#include <sstream>

namespace mbstep {

void AddNodeInvariants(const NodeInertia& in, const FrameState& s, Invariants& inv) {
    const Vec3 S = s.R * in.s;
    const Mat3 J = s.R * in.J * s.R.transpose();
    const Vec3 p = in.m * s.v + s.w.cross(S);
    inv.kinetic += 0.5 * in.m * s.v.squaredNorm() + s.v.dot(s.w.cross(S)) + 0.5 * s.w.dot(J * s.w);
    inv.momentum += p;
    inv.angular_momentum += s.x.cross(p) + S.cross(s.v) + J * s.w;
}

std::string DescribeConstraintRow(const Element& e, int k) {
    std::ostringstream os;
    os << e.statement() << " " << e.label() << " (" << e.type() << "), constraint equation "
       << (k + 1);
    return os.str();
}

}  // namespace mbstep
