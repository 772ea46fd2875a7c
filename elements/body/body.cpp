// mbstep — rigid body (body.hpp for the equations).
#include "body.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::body {

NodeInertia CondenseMasses(const MassInput* masses, int count) {
    NodeInertia out;
    for (int i = 0; i < count; ++i) {
        const MassInput& mi = masses[i];
        const Vec3& c = mi.offset;
        out.m += mi.m;      // eq. (1)
        out.s += mi.m * c;  // eq. (2)
        out.J += mi.J_cm + mi.m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());  // (3)
    }
    return out;
}

Body::Body(int label, int node, const NodeInertia& inertia)
    : Element(label, "body"), inertia_(inertia) {
    nodes_ = {node};
    set_statement("body");
}

void Body::AddInertia(std::vector<NodeInertia>& inertia) const { inertia[0] += inertia_; }

void Body::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    const FrameState& n = *ctx.node[0];
    const Vec3& g = ctx.gravity;
    const Vec3 Rs = n.R * inertia_.s;
    out.f.segment<3>(0) = inertia_.m * g;  // eq. (4)
    out.f.segment<3>(3) = Rs.cross(g);     // eq. (5)
    // eq. (6); zero for a body centred on its node (s = 0): then no block is declared.
    const bool offset = !inertia_.s.isZero(0.0);
    if (out.want_jacobian && offset) out.K.block<3, 3>(3, 3) = -Skew(g) * Skew(Rs);
    out.k_blocks = offset ? ElementBlock::Pair(0, 0) : 0u;  // no twist dependence
    out.c_blocks = 0;
}

double Body::PotentialEnergy(const ElementContext& ctx) const {
    const FrameState& n = *ctx.node[0];
    return -ctx.gravity.dot(inertia_.m * n.x + n.R * inertia_.s);  // eq. (8)
}

std::string Body::MbdynLogLine(const LogLineContext& ctx) const {
    return LogLine("body", label(), ctx.precision)  // eq. (9)
        .Node(ctx.node_label[0])
        .Real(inertia_.m)
        .Vec(inertia_.s / inertia_.m)
        .Mat(inertia_.J)
        .str();
}

namespace {

bool AllFinite(const Mat3& m) { return m.allFinite(); }

// One <mass>, <offset>, <inertia> [, inertial|orientation, node|<orientation>] group.
MassInput ReadOneMass(DeckInput& in, const FrameState& node_frame) {
    MassInput mi;
    if (in.IsKeyword("allow negative mass"))
        in.Fail(in.Where(), "negative masses are not supported ('allow negative mass')");
    const SourceLocation mass_at = in.Where();
    mi.m = in.GetReal("mass");
    if (!std::isfinite(mi.m) || !(mi.m > 0.0)) in.Fail(mass_at, "mass must be positive");

    const SourceLocation offset_at = in.Where();
    mi.offset = in.GetPosition(node_frame, "relative center of mass");
    if (!mi.offset.allFinite()) in.Fail(offset_at, "center of mass offset is not finite");

    const SourceLocation inertia_at = in.Where();
    const Mat3 J = in.GetMat3("inertia matrix");
    // Symmetric within round-off of the input, positive semi-definite (zero: point mass).
    const double scale = std::max(J.cwiseAbs().maxCoeff(), 1e-300);
    bool ok = AllFinite(J) && (J - J.transpose()).cwiseAbs().maxCoeff() <= 1e-9 * scale;
    if (ok) {
        const Eigen::SelfAdjointEigenSolver<Mat3> eig(0.5 * (J + J.transpose()),
                                                      Eigen::EigenvaluesOnly);
        ok = eig.eigenvalues().minCoeff() >= -1e-12 * scale;
    }
    if (!ok) in.Fail(inertia_at, "inertia matrix is not symmetric positive definite");

    // Optional frame of the inertia matrix, relative to the node.
    Mat3 Rj = Mat3::Identity();
    if (in.IsKeyword("inertial") || in.IsKeyword("orientation")) {
        if (!in.IsKeyword("node")) Rj = in.GetOrientation(node_frame, "inertia orientation");
    }
    mi.J_cm = Rj * (0.5 * (J + J.transpose())) * Rj.transpose();
    return mi;
}

}  // namespace

std::unique_ptr<Element> ReadBody(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    const int node = in.GetNode("node label");
    const FrameState& node_frame = in.node(node).initial;

    // `condense, n` groups n masses on the same node (MBDyn); at most a handful in practice.
    long count = 1;
    if (in.IsKeyword("condense")) {
        count = in.GetInt("number of masses", 1, std::numeric_limits<int>::max());
    }
    std::vector<MassInput> masses;
    masses.reserve(static_cast<size_t>(std::min(count, 16L)));  // the deck may hold fewer
    for (long i = 0; i < count; ++i) masses.push_back(ReadOneMass(in, node_frame));

    auto body = std::make_unique<Body>(args.label, node,
                                       CondenseMasses(masses.data(), static_cast<int>(count)));
    body->set_where(where);
    return body;
}

}  // namespace mbstep::body
