// mbstep — formulations: turn a Model into equations in some coordinates.
//
// A formulation numbers the degrees of freedom, maps twist-space element blocks to its
// coordinates, adds the inertia terms, and provides the rotation chart. The first-order
// formulations (cgr) expose FirstOrderProblem, the interface of the StepN / SingleStep /
// StageN templates.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mbstep/io/settings.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep {

class FirstOrderProblem;
class SecondOrderProblem;

/// Scalar energies and momenta of the current state (for the .csv summary and tests).
struct Invariants {
    double kinetic{0.0};
    double potential{0.0};
    Vec3 momentum{Vec3::Zero()};
    Vec3 angular_momentum{Vec3::Zero()};  ///< about the global origin
    double constraint_violation{0.0};     ///< max |phi| over position-level constraints
};

/// Adds a rigid node's kinetic energy, momentum and angular momentum about the global origin,
/// with S = R s, J = R J_n R^T: T = m v.v/2 + v.(w x S) + w.J w/2, p = m v + w x S,
/// L_O = x x p + S x v + J w. Shared by every formulation's ComputeInvariants.
void AddNodeInvariants(const NodeInertia& inertia, const FrameState& s, Invariants& inv);

/// "<statement> <label> (<type>), constraint equation <k+1>" for failure messages.
std::string DescribeConstraintRow(const Element& e, int k);

/// The rows of a constraint Jacobian G (one row per constraint equation, in equation order)
/// that are linear combinations of the rows before them: a rank-revealing sparse QR of G^T
/// with its columns in their natural order, where a column whose Householder pivot falls
/// below the threshold 20 (m + n) eps max_j |g_j| is dependent on the earlier ones (Davis,
/// "Algorithm 915, SuiteSparseQR", ACM TOMS 38(1), 2011, p. 8:3; Eigen's SparseQR). Empty when
/// G has full row rank. For the diagnosis of a singular system only (not on a hot path).
std::vector<int> DependentConstraintRows(const Eigen::SparseMatrix<double>& G);

/// Who owns a constraint row, for DescribeRedundantRows: e.g. {"joint 3 (revolute hinge)", 2}
/// for its constraint equation 2 (1-based); equation 0 when the owner text names the row.
struct ConstraintRowOwner {
    std::string owner;
    int equation{0};
};
/// "joint 3 (revolute hinge), constraint equations 1, 2, 3; joint 5 (...), constraint equation
/// 2": the rows grouped by owner, in order.
std::string DescribeRedundantRows(const std::vector<int>& rows,
                                  const std::function<ConstraintRowOwner(int)>& owner_of);

/// The message of a singular system with constraint rows G (`what`: e.g. "initial
/// derivatives: singular system at t = 0"): names the redundant constraint rows when G is row
/// rank deficient, else `otherwise` (the other causes of that system's singularity).
std::string SingularSystemMessage(const std::string& what, const Eigen::SparseMatrix<double>& G,
                                  const std::function<ConstraintRowOwner(int)>& owner_of,
                                  const std::string& otherwise);
/// owner_of for the constraint rows of element `e`'s multipliers.
ConstraintRowOwner ElementRowOwner(const Element& e, int k);

/// An element's multipliers in a formulation: offset in lambda (-1: none) and count.
struct ElementSlot {
    int mult_offset{-1};
    int m{0};
};

/// The rate of element `el`'s constraint rows along the motion of its nodes with constant
/// twists from `states` (indexed as Model::nodes(); x + tau v, exp(tau w) R): at time t + tau,
/// phi_q (v, w) + dphi/dt, the time derivative by central differences (step 1e-6). The initial
/// conditions of the formulations differentiate it once more in tau for the velocity-product
/// terms of the constraints' second derivative.
Eigen::VectorXd ConstraintRateAlongMotion(const Element& el, const std::vector<FrameState>& states,
                                          double t, double tau, const Vec3& gravity);

/// The element bookkeeping of the second-order formulations.
struct ElementTable {
    /// Per element: its multipliers' offset (numbered from BuildElementTable's
    /// `first_multiplier` on) and count.
    std::vector<ElementSlot> slots;
    /// Each element's node-state pointers, flattened: ptrs[ptr_offset[e] + k] = &states[node k
    /// of e].
    std::vector<const FrameState*> ptrs;
    std::vector<int> ptr_offset;
    /// The elements that contribute (Element::HasContribution or multipliers), in order.
    std::vector<int> active;
    /// One past the last multiplier numbered.
    int end_multiplier{0};
};

/// Builds the table of the model's elements over `states`. Refuses elements larger than
/// ElementBlock and velocity-level constraint rows (which SecondOrderProblem cannot express),
/// naming the element and `formulation`.
ElementTable BuildElementTable(const Model& model, const std::vector<FrameState>& states,
                               const std::string& formulation, int first_multiplier);

class Formulation {
  public:
    virtual ~Formulation() = default;
    virtual std::string name() const = 0;
    virtual ProblemInterface interface() const = 0;
    /// The first-order DAE view, or nullptr.
    virtual FirstOrderProblem* first_order() { return nullptr; }
    /// The second-order DAE view (formulation/second_order.hpp), or nullptr.
    virtual SecondOrderProblem* second_order() { return nullptr; }

    virtual const Model& model() const = 0;
    /// Current absolute state of every node (index = model node index).
    virtual const std::vector<FrameState>& node_states() const = 0;
    /// Current value and derivative of every abstract node (index = Model::abstract_nodes()
    /// index); empty for formulations without abstract nodes.
    virtual const std::vector<AbstractState>& abstract_states() const {
        static const std::vector<AbstractState> kNone;
        return kNone;
    }
    /// Current multipliers of element e (nullptr when it has none).
    virtual const double* multipliers(int element) const = 0;
    virtual double time() const = 0;
    virtual Invariants ComputeInvariants() const = 0;
    /// Number of threads for assembly (1 = serial; results are identical for any value).
    virtual void set_threads(int n) = 0;
    /// What in the current state may explain a Newton failure besides the worst equation (a
    /// chart near its singularity, ...); empty when nothing does.
    virtual std::string FailureContext() const { return {}; }
};

enum class DofKind : unsigned char { kDifferential, kAlgebraic };

/// r(y, y', t) = 0 for the StepN / SingleStep / StageN families (docs/DESIGN.md).
///
/// Newton unknowns are y' for differential dofs and y itself (a multiplier) for algebraic
/// dofs. Inside Newton, a differential dof moves as dy = c dy' with c = b0 h of the current
/// step or stage; the iteration matrix is J = dr/dy' + c dr/dy, and constraint rows are
/// scaled by 1/c [Bottasso et al. / MBDyn].
class FirstOrderProblem {
  public:
    virtual ~FirstOrderProblem() = default;
    virtual int num_dofs() const = 0;
    virtual const std::vector<DofKind>& dof_kinds() const = 0;
    Eigen::VectorXd& y() { return y_; }
    Eigen::VectorXd& yp() { return yp_; }

    virtual void SetTime(double t) = 0;
    /// Before predicting point N: history[j] holds (y, y') of the solved point N-1-j (the
    /// formulation keeps the absolute orientations of its last 8 solved points, stages
    /// included, in the same order). Rotation dofs are rewritten relative to the orientation
    /// of history point `chart` (0 = the last solved point; MBDyn StructNode::BeforePredict):
    /// g_j = g(R_j R_chart^T), g'_j = G(g_j)^-1 w_j, and the current point's rotations are
    /// taken relative to R_chart until the next BeforePredict. Multistage methods pass the
    /// step's first point so that all stages of a step share one chart.
    virtual void BeforePredict(std::vector<Eigen::VectorXd>& y_history,
                               std::vector<Eigen::VectorXd>& yp_history, int chart = 0) = 0;
    /// After the integrator wrote predicted y, y': rotations become R_ref = R(g) R_{N-1},
    /// w_ref = G(g) g', and their parameters are reset to zero (increments from the prediction).
    virtual void AfterPredict() = 0;
    /// r at the current y, y', t; constraint rows divided by c.
    virtual void Residual(double c, Eigen::VectorXd& r) = 0;
    /// J = dr/dy' + c dr/dy into a matrix with the fixed pattern of pattern().
    virtual void Jacobian(double c, Eigen::SparseMatrix<double>& J) = 0;
    /// Residual() and Jacobian() at the same point: the same values (bits); a formulation may
    /// evaluate its elements once for both (Newton's first iteration of a point).
    virtual void ResidualAndJacobian(double c, Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) {
        Residual(c, r);
        Jacobian(c, J);
    }
    /// The fixed sparsity pattern (values zero). Its size is the number of Newton unknowns,
    /// which may be smaller than num_dofs(): a formulation may carry state dofs in y, y' (kept
    /// in the integrator's history and predicted like any differential dof) that it computes
    /// from the Newton unknowns instead of solving for them (`cgr velocity`: the momenta).
    virtual const Eigen::SparseMatrix<double>& pattern() const = 0;
    /// pattern() itself, shared with the Newton solver, which assembles into it in place (its
    /// values are then the last iteration matrix's; the structure never changes), when the
    /// problem keeps it only to hand it over: one matrix instead of two on large models.
    /// nullptr: Newton assembles into a copy.
    virtual std::shared_ptr<Eigen::SparseMatrix<double>> shared_pattern() { return nullptr; }
    /// Index in y, y' of Newton unknown k (k < pattern().rows(); identity unless dofs are
    /// eliminated, see pattern()). Residual rows and Update's delta are in Newton numbering.
    virtual int unknown_dof(int k) const { return k; }
    /// Differential dofs: y' += delta, y += c delta; algebraic: y += delta (Newton numbering;
    /// eliminated dofs follow from the unknowns, keeping y - c y' of the prediction).
    virtual void Update(const Eigen::VectorXd& delta, double c) = 0;
    /// The converged point becomes the last solved point (rotation history ring advances).
    virtual void AfterConvergence() = 0;
    /// Undo the effect of the last BeforePredict/AfterPredict (step rejected, retried).
    virtual void RestoreLastSolved() = 0;
    /// Drops the `count` most recent solved points from the history (a multistage step whose
    /// later stage failed after `count` stages had converged), then RestoreLastSolved().
    /// Formulations that keep no history beyond y and y' may keep this default.
    virtual void DiscardSolved(int count) {
        if (count > 0)
            throw RunError("formulation cannot discard solved points (multistage step retry)");
        RestoreLastSolved();
    }
    /// Human-readable name of equation row i: "node 3, force y", "joint 12, constraint 2".
    virtual std::string DescribeEquation(int row) const = 0;
    /// NewtonSystem::ResidualNoise at the current point with coefficient c (Newton numbering):
    /// a per-row bound on the round-off of rows formed with a cancellation the equations do
    /// not have. Empty (the default): none.
    virtual void ResidualNoise(double /*c*/, Eigen::VectorXd& noise) const { noise.resize(0); }
    /// Initial derivatives phase (MBDyn DerivativeSolver): y fixed, solve for y' and
    /// multipliers with coefficient c; returns the number of iterations.
    virtual int SolveInitialDerivatives(const SolverSettings& s, double h) = 0;

  protected:
    Eigen::VectorXd y_;
    Eigen::VectorXd yp_;
};

}  // namespace mbstep
