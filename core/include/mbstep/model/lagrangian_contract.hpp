// mbstep — the Lagrangian contract of an element on abstract nodes (docs/DESIGN.md, "Abstract
// nodes and the `lagrangian` element"). Only such elements implement it, besides Element; the
// formulations that read it (`lagrangian`, the cgr family's forms for abstract nodes) ask
// Element::lagrangian() once, when they build their element table, and keep the pointer.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "mbstep/model/element.hpp"

namespace mbstep {

/// The Lagrangian contract's block: for the element's n coordinates q (the values of its
/// abstract nodes, in the order of Element::abstract_nodes()) and rates v, the kinetic energy
/// T(q, v), the potential V(q) and m holonomic constraints g(q) = 0, each with its first and
/// second derivatives. Formulations form their equations from these (e.g. the Euler-Lagrange
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

/// The Lagrangian contract. An element on abstract nodes derives from it as well as from
/// Element and returns itself from Element::lagrangian().
class LagrangianContract {
  public:
    virtual ~LagrangianContract();

    /// Writes the contract at coordinates q and rates v (n = abstract_nodes() values each) and
    /// time t; its constraint rows are the element's multipliers. An element that also has
    /// structural nodes (nodes() non-empty) reads their positions x (3 per node, in the order
    /// of nodes(); nullptr: their initial positions) and writes LagrangianBlock's mixed blocks
    /// V_qx, G_x, g_qx; its force on those nodes comes from Evaluate (with
    /// ElementContext::abstract_q). The default writes nothing.
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
};

}  // namespace mbstep
