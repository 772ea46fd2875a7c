// mbstep — the element contract (docs/DESIGN.md, "The element contract").
//
// An element connects k structural nodes and owns m Lagrange multipliers. It writes, in
// twist space and in the global frame, for its nodes i = 1..k:
//
//   (1) f = (F_1, M_1, ..., F_k, M_k)     generalized force on the nodes, moments about the
//                                         node points; constraint reactions included:
//                                         f = f_applied(q, v, t) - W^T lambda
//   (2) K = -df/dq                        q = (dx_1, dtheta_1, ...), spatial (left) rotation
//                                         increments: R_new = exp(skew(dtheta)) R
//   (3) C = -df/dv                        v = (v_1, w_1, ...), the nodes' twists
//   (4) L = df/dlambda  (= -W^T)          6k x m
//   (5) phi(q, v, t) = 0                  m constraint equations; position level for
//                                         holonomic joints (phi_v = 0), velocity level
//                                         for joints that prescribe velocities
//   (6) phi_q = dphi/dq, phi_v = dphi/dv  m x 6k
//
// Elements never see rotation parameters, formulations or integrators: a formulation maps
// these blocks to its coordinates, an integrator scales them. Every analytic derivative is
// checked against finite differences of f and phi by the registry-driven element test.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {

/// Constant inertia an element attaches to a node, in the node frame:
/// m mass, s = m * (centre of mass offset), J inertia about the node point.
struct NodeInertia {
    double m{0.0};
    Vec3 s{Vec3::Zero()};
    Mat3 J{Mat3::Zero()};
    NodeInertia& operator+=(const NodeInertia& o) {
        m += o.m;
        s += o.s;
        J += o.J;
        return *this;
    }
};

/// Local output block of one element evaluation. Sizes are bounded so that no heap memory is
/// used: at most kMaxNodes nodes and kMaxMultipliers multipliers per element.
struct ElementBlock {
    static constexpr int kMaxNodes = 4;
    static constexpr int kMaxDofs = 6 * kMaxNodes;
    static constexpr int kMaxMultipliers = 8;
    using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxDofs, 1>;
    using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxDofs, kMaxDofs>;
    using MatL =
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxDofs, kMaxMultipliers>;
    using VecC = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxMultipliers, 1>;
    using MatC =
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxMultipliers, kMaxDofs>;

    Vec f;       ///< (1)
    Mat K;       ///< (2)
    Mat C;       ///< (3)
    MatL L;      ///< (4)
    VecC phi;    ///< (5)
    MatC phi_q;  ///< (6)
    MatC phi_v;  ///< (6)
    bool want_jacobian{true};
    /// Which node-pair blocks of K and C the element may write: bit (a * kMaxNodes + b) for
    /// the 6x6 block of node a's rows and node b's columns. Reset() sets every bit; an element
    /// whose structure is known may clear bits (e.g. a joint's force on one node does not
    /// depend on the other node's state) so that formulations skip those blocks without
    /// looking at them. Writing outside the declared blocks is a bug (debug builds check it).
    std::uint32_t k_blocks{~0u};
    std::uint32_t c_blocks{~0u};
    static constexpr std::uint32_t Pair(int a, int b) { return 1u << (a * kMaxNodes + b); }
    /// A finer declaration inside every written block: which of its 3x3 quadrants may be
    /// non-zero, bit Quadrant(r, c) for the force (r = 0) or moment (r = 1) rows and the
    /// translation (c = 0) or rotation (c = 1) columns; the same for every node pair. Reset()
    /// sets all four; e.g. a spherical joint's moments depend on its nodes' rotations only, so
    /// it writes moment x rotation quadrants alone. Formulations may skip the others without
    /// reading them (the values there must be zero: debug builds check it).
    static constexpr std::uint8_t Quadrant(int r, int c) { return std::uint8_t(1u << (2 * r + c)); }
    static constexpr std::uint8_t kAllQuadrants = 15;
    std::uint8_t k_quadrants{kAllQuadrants};
    std::uint8_t c_quadrants{kAllQuadrants};

    /// Sizes every block for k nodes and m multipliers and sets it to zero. A caller that knows
    /// the element's declared node-pair blocks (k_blocks, c_blocks of an earlier evaluation)
    /// may pass them: K and C are then zeroed only there, and what lies outside is left
    /// unspecified and must not be read (debug builds zero everything, for their checks).
    void Reset(int k, int m, bool jacobian, std::uint32_t k_pairs = ~0u,
               std::uint32_t c_pairs = ~0u) {
        const int n = 6 * k;
        want_jacobian = jacobian;
        k_blocks = c_blocks = ~0u;
        k_quadrants = c_quadrants = kAllQuadrants;
        f.setZero(n);
        phi.setZero(m);
        if (jacobian) {
#ifndef NDEBUG
            k_pairs = c_pairs = ~0u;
#endif
            ZeroPairs(K, k, k_pairs);
            ZeroPairs(C, k, c_pairs);
            L.setZero(n, m);
            phi_q.setZero(m, n);
            phi_v.setZero(m, n);
        }
    }

  private:
    static void ZeroPairs(Mat& M, int k, std::uint32_t pairs) {
        std::uint32_t all = 0;  // the bits of the k x k pairs
        for (int a = 0; a < k; ++a) all |= ((1u << k) - 1u) << (a * kMaxNodes);
        if ((pairs & all) == all) {
            M.setZero(6 * k, 6 * k);
            return;
        }
        M.resize(6 * k, 6 * k);
        for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b)
                if (pairs & Pair(a, b)) M.block<6, 6>(6 * a, 6 * b).setZero();
    }
};

/// The Lagrangian contract of an element on abstract nodes (docs/DESIGN.md, "Abstract nodes and
/// the `lagrangian` element"): for its n coordinates q (the values of its abstract nodes, in
/// the order of Element::abstract_nodes()) and rates v, the kinetic energy T(q, v), the
/// potential V(q) and m holonomic constraints g(q) = 0, each with its first and second
/// derivatives. Formulations form their equations from these (e.g. the Euler-Lagrange
/// equations d/dt(T_v) - T_q + V_q + G^T lambda = 0, G = g_q); M = T_vv may be singular and is
/// never inverted by them.
struct LagrangianBlock {
    double T{0.0}, V{0.0};
    Eigen::VectorXd T_q, T_v, V_q;      ///< n
    Eigen::MatrixXd T_qq, T_qv, T_vv;   ///< n x n; T_qv(i, j) = d2T/dq_i dv_j
    Eigen::MatrixXd V_qq;               ///< n x n
    Eigen::VectorXd g;                  ///< m
    Eigen::MatrixXd G;                  ///< m x n, G(k, j) = dg_k/dq_j
    std::vector<Eigen::MatrixXd> g_qq;  ///< m matrices n x n
    /// Elements that also read the positions x of structural nodes (3 per node, in the order
    /// of Element::nodes(); EvaluateLagrangian's x): the mixed second derivatives with the
    /// coordinates and the constraints' gradient in x. Empty (0 columns) otherwise. What x
    /// does to the structural nodes themselves (the force -V_x - G_x^T lambda and its
    /// derivatives in x) the element writes through Evaluate, in twist space.
    Eigen::MatrixXd V_qx;               ///< n x 3k, d2V/dq_i dx_j
    Eigen::MatrixXd G_x;                ///< m x 3k, dg_k/dx_j
    std::vector<Eigen::MatrixXd> g_qx;  ///< m matrices n x 3k
    std::vector<Eigen::MatrixXd> g_xx;  ///< m matrices 3k x 3k (initial accelerations)
};

/// What an element sees when it is evaluated.
struct ElementContext {
    double t{0.0};
    /// States of the element's own nodes, in the order of Element::nodes().
    const FrameState* const* node;
    /// The element's multipliers (m values).
    const double* lambda{nullptr};
    /// Uniform gravity acceleration at time t (zero without a gravity element).
    Vec3 gravity{Vec3::Zero()};
    /// Elements on abstract and structural nodes both (Element::abstract_nodes() and nodes()
    /// non-empty): the current values of its abstract nodes, in the order of abstract_nodes();
    /// nullptr elsewhere (the element then takes the abstract nodes' initial values).
    const double* abstract_q{nullptr};
};

/// What an element sees when it writes its line of MBDyn's .log (Element::MbdynLogLine): the
/// labels and the initial states, as read from the deck (before the initial joint assembly, as
/// MBDyn writes it while reading the input), of its own nodes in the order of Element::nodes().
struct LogLineContext {
    const int* node_label{nullptr};
    const FrameState* const* node{nullptr};
    int precision{6};  ///< significant digits of the numbers (the run's output precision)
};

/// Kind of the element's constraint equations. kMixed: some rows are position level, others
/// velocity level (Element::row_level says which), e.g. a revolute hinge whose rotation about
/// the axis has a prescribed angular velocity (`axial rotation`).
enum class ConstraintLevel { kNone, kPosition, kVelocity, kMixed };

/// What an output variable measures: names its units in MBDyn's NetCDF attributes
/// (io/netcdf.hpp). No value is converted.
enum class OutputQuantity {
    kLength,
    kVelocity,
    kAngularVelocity,
    kForce,
    kMoment,
    kRadians,
    kDegrees,
    kDimensionless
};

/// The shape of an output variable, as MBDyn's OutputHandler::CreateVar<T> and
/// CreateRotationVar declare it: a Vec3 ([time, Vec3], attribute type "Vec3"), a scalar
/// ([time], "doublereal") or a 3x3 matrix ([time, Vec3, Vec3], "Mat3x3", its values stored
/// column by column: R11, R21, R31, R12, ...).
enum class NetcdfShape { kVec3, kScalar, kMat3x3 };

/// Number of doubles a variable of shape s holds per output step.
inline int NetcdfSize(NetcdfShape s) {
    return s == NetcdfShape::kScalar ? 1 : s == NetcdfShape::kMat3x3 ? 9 : 3;
}

/// One variable of an element's group in MBDyn's NetCDF layout: `<group>.<name>`.
struct NetcdfVariable {
    std::string name;
    OutputQuantity quantity;
    std::string description;
    NetcdfShape shape{NetcdfShape::kVec3};
};

/// An element's group in MBDyn's NetCDF layout (the element's OutputPrepare in MBDyn): the
/// variable `<prefix>.<label>` whose attribute `type` is `type`, then `variables`, each
/// NetcdfSize(shape) doubles per output step. An empty prefix: the element writes nothing
/// there.
struct NetcdfGroup {
    std::string prefix;  ///< "elem.joint", "elem.beam", "elem.force", "elem.couple"
    std::string type;
    std::vector<NetcdfVariable> variables;
};

class Element {
  public:
    Element(int label, std::string type) : label_(label), type_(std::move(type)) {}
    virtual ~Element() = default;

    int label() const { return label_; }
    /// Deck keyword of the element, e.g. "spherical hinge", "body", "absolute force".
    const std::string& type() const { return type_; }
    /// Statement it was read from: "joint", "body", "force", "couple", "gravity", ...
    const std::string& statement() const { return statement_; }
    void set_statement(std::string s) { statement_ = std::move(s); }
    const SourceLocation& where() const { return where_; }
    void set_where(SourceLocation w) { where_ = std::move(w); }

    /// Indices (into Model::nodes) of the connected nodes.
    const std::vector<int>& nodes() const { return nodes_; }
    /// Indices (into Model::abstract_nodes) of the abstract nodes it reads (Lagrangian
    /// contract); empty for elements on structural nodes.
    const std::vector<int>& abstract_nodes() const { return abstract_nodes_; }
    /// Writes the Lagrangian contract at coordinates q and rates v (n = abstract_nodes()
    /// values each) and time t. Only elements with abstract nodes implement it; its
    /// constraint rows are the element's multipliers. An element that also has structural
    /// nodes (nodes() non-empty) reads their positions x (3 per node, in the order of nodes();
    /// nullptr: their initial positions) and writes LagrangianBlock's mixed blocks V_qx, G_x,
    /// g_qx; its force on those nodes comes from Evaluate (with ElementContext::abstract_q).
    virtual void EvaluateLagrangian(double /*t*/, const double* /*q*/, const double* /*v*/,
                                    LagrangianBlock& /*out*/, const double* /*x*/ = nullptr) const {
    }
    /// The derivative along (dq, dv) of the Hessian of T with respect to x = (q, v) at (q, v)
    /// and time t: dH(i, j) = sum_k d3T/dx_i dx_j dx_k (dq, dv)_k, 2n x 2n, exact. The
    /// Newmark-family Jacobians need it (d(T_vv a)/dq, d(T_vq v)/dq and /dv). Returns false
    /// when the element does not provide it (the default).
    virtual bool KineticHessianDerivative(double /*t*/, const double* /*q*/, const double* /*v*/,
                                          const double* /*dq*/, const double* /*dv*/,
                                          Eigen::MatrixXd& /*dH*/) const {
        return false;
    }
    virtual int num_multipliers() const { return 0; }
    virtual ConstraintLevel constraint_level() const { return ConstraintLevel::kNone; }
    /// Level (kPosition or kVelocity) of constraint row j, 0 <= j < num_multipliers().
    /// Elements whose constraint_level() is kMixed override it.
    virtual ConstraintLevel row_level(int /*row*/) const { return constraint_level(); }

    /// Constant inertia this element attaches to its nodes (bodies). Adds to inertia[i] for
    /// node i of nodes(). Default: none.
    virtual void AddInertia(std::vector<NodeInertia>& /*inertia*/) const {}
    /// True if Evaluate writes anything (bodies without gravity write nothing).
    virtual bool HasContribution() const { return true; }
    /// True if everything Evaluate writes is the weight of the inertia this element attaches
    /// with AddInertia to its single node, with no multipliers (a body: F = m g, M = (R s) x g,
    /// K_M,theta = -skew(g) skew(R s), elements/body/body.hpp (4)-(6)). A formulation that sums
    /// the attached inertia per node may then apply the node's weight in its node pass instead
    /// of evaluating such elements one by one (`cgr`, `cgr velocity`).
    virtual bool ContributesOnlyWeight() const { return false; }

    /// Writes (1)-(6) into out, which the caller has Reset() to the element's size.
    virtual void Evaluate(const ElementContext& ctx, ElementBlock& out) const = 0;

    /// Potential energy of conservative applied loads (gravity, springs); 0 by default.
    virtual double PotentialEnergy(const ElementContext& /*ctx*/) const { return 0.0; }

    /// One line of reactions for the .jnt file (MBDyn layout); joints override.
    virtual void WriteReaction(std::ostream& /*os*/, const ElementContext& /*ctx*/) const {}
    virtual bool HasReactionOutput() const { return false; }
    /// Extension of the file WriteReaction writes to: "jnt" (joints), "act" (beams), ...
    virtual const char* output_extension() const { return "jnt"; }
    /// Force and moment vectors in the global frame for the VTK output (io/vtk.hpp): appends
    /// one (force, moment) pair per cell the element is drawn as, either one pair for the whole
    /// element or one per segment between consecutive nodes (a beam's internal force and
    /// moment at each evaluation point). The default, for elements with reaction output whose
    /// output_extension() is "jnt", reads MBDyn's .jnt layout of the WriteReaction line (label,
    /// local force, local couple, global force, global couple, ...): its global columns;
    /// otherwise it appends nothing.
    virtual void OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                               std::vector<Vec3>& moment) const;
    /// The element's group in MBDyn's NetCDF layout (io/netcdf.hpp). The default, for a
    /// `joint` statement with reaction output in the .jnt layout: `elem.joint`, the element's
    /// type, and MBDyn's `f`, `m`, `F`, `M` (Joint::OutputPrepare_int); joints whose .jnt line
    /// has more columns add their own variables after these.
    virtual NetcdfGroup NetcdfDescription() const;
    /// The values of NetcdfDescription()'s variables, NetcdfSize(shape) per variable in its
    /// order (a matrix column by column), at the start of out (which it resizes; more values
    /// than the variables need are ignored). The
    /// default: the numbers of the element's WriteReaction line after its label. False when
    /// there are none.
    virtual bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const;
    /// One line describing the element in the .log (empty: the element is only counted).
    virtual std::string LogDescription() const { return {}; }
    /// The element's line of MBDyn's .log, without its newline, in the layout MBDyn's input
    /// reader writes it (e.g. `sphericalhinge: label node1 f1 R1 node2 f2 R2`; io/mbdyn_log.hpp
    /// formats the fields), which Blendyn and mboct read to rebuild the model. Empty: MBDyn
    /// writes no line for this element type (gravity, drives, couples), nor does mbstep.
    virtual std::string MbdynLogLine(const LogLineContext& /*ctx*/) const { return {}; }

    /// Called by the run loop (Run, simulation.cpp) with the converged state and multipliers:
    /// at the start with the initial multipliers (cgr's initial derivatives, the second-order
    /// methods' Start; that initial solve and this call then alternate until the multipliers
    /// agree, so the initial accelerations see the state saved here), and after every
    /// converged step, after its output was written. Elements that need the
    /// previous step's reactions (joint friction: its normal force) save them here; Evaluate
    /// then treats them as constants. State saved here is the only mutable state of an
    /// element; runs that bypass Run see none of it (e.g. friction with a zero normal force).
    virtual void AfterConvergence(const ElementContext& /*ctx*/) {}
    /// True if AfterConvergence does anything (the run loop calls only these elements; it asks
    /// once, before the first step: part of the element's structure).
    virtual bool NeedsConvergedState() const { return false; }

  protected:
    std::vector<int> nodes_;
    std::vector<int> abstract_nodes_;

  private:
    int label_;
    std::string type_;
    std::string statement_;
    SourceLocation where_;
};

}  // namespace mbstep
