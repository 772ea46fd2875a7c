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

/// Kind of the element's constraint equations. kMixed: some rows are position level, others
/// velocity level (Element::row_level says which), e.g. a revolute hinge whose rotation about
/// the axis has a prescribed angular velocity (`axial rotation`).
enum class ConstraintLevel { kNone, kPosition, kVelocity, kMixed };

class ElementOutput;
class LagrangianContract;

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
    /// The element's Lagrangian contract (model/lagrangian_contract.hpp), or nullptr (the
    /// default): elements on abstract nodes implement it and return themselves. The
    /// formulations ask once, when they build their element table.
    virtual const LagrangianContract* lagrangian() const { return nullptr; }
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

    /// The element's output (model/element_output.hpp), or nullptr (the default): elements
    /// that write to the run's files implement it and return themselves. The output writers
    /// ask once, when they are set up.
    virtual const ElementOutput* output() const { return nullptr; }

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
