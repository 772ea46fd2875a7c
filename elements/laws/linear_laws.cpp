// mbstep — linear constitutive laws (linear_laws.hpp for the equations).
#include "linear_laws.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>
#include <utility>

namespace mbstep::laws {

using Mat = ConstitutiveLaw::Mat;
using Vec = ConstitutiveLaw::Vec;

LinearLaw::LinearLaw(std::string keyword, const Mat& K, const Mat& C)
    : ConstitutiveLaw(static_cast<int>(K.rows())),
      keyword_(std::move(keyword)),
      K_(K),
      C_(C),
      viscous_(!C.isZero(0.0)) {}

void LinearLaw::Evaluate(const Vec& e, const Vec& ep, Vec& f, Mat* De, Mat* Dv) const {
    f.noalias() = K_ * e;  // eq. (1)
    if (viscous_) f.noalias() += C_ * ep;
    if (De) *De = K_;
    if (Dv) *Dv = C_;
}

double LinearLaw::Energy(const Vec& e) const { return 0.5 * e.dot(K_ * e); }  // eq. (2)

namespace {

void AppendMatrix(std::ostringstream& os, const Mat& M) {
    if (M.rows() == 1) {
        os << M(0, 0);
        return;
    }
    Mat D = M.diagonal().asDiagonal();
    if (M == D) {
        os << "diag(";
        for (int i = 0; i < M.rows(); ++i) os << (i ? ", " : "") << M(i, i);
        os << ")";
        return;
    }
    os << "[";
    for (int i = 0; i < M.rows(); ++i) {
        os << (i ? "; " : "");
        for (int j = 0; j < M.cols(); ++j) os << (j ? ", " : "") << M(i, j);
    }
    os << "]";
}

}  // namespace

std::string LinearLaw::Describe() const {
    std::ostringstream os;
    os.precision(6);
    os << keyword_ << " (" << dimension() << "D): K = ";
    AppendMatrix(os, K_);
    if (viscous_) {
        os << ", C = ";
        AppendMatrix(os, C_);
    }
    return os.str();
}

namespace {

// A matrix of dimension n: `eye | null | diag, n | sym, n(n+1)/2 | [matr,] n^2 [, scale, s]`;
// for n = 1 a single number.
Mat GetMatrix(DeckInput& in, int n, const std::string& what) {
    Mat m = Mat::Zero(n, n);
    const SourceLocation at = in.Where();
    if (n == 1) {
        m(0, 0) = in.GetReal(what);
    } else if (in.IsKeyword("null")) {
    } else if (in.IsKeyword("eye")) {
        m.setIdentity();
    } else if (in.IsKeyword("diag")) {
        for (int i = 0; i < n; ++i)
            m(i, i) = in.GetReal(what + ", diagonal " + std::to_string(i + 1));
    } else if (in.IsKeyword("sym")) {
        for (int i = 0; i < n; ++i)
            for (int j = i; j < n; ++j)
                m(i, j) = m(j, i) = in.GetReal(what + ", element " + std::to_string(i + 1) + "," +
                                               std::to_string(j + 1));
    } else {
        in.IsKeyword("matr");
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                m(i, j) = in.GetReal(what + ", element " + std::to_string(i + 1) + "," +
                                     std::to_string(j + 1));
    }
    if (n > 1 && in.IsKeyword("scale")) m *= in.GetReal(what + ", scale factor");
    if (!m.allFinite()) in.Fail(at, what + " is not finite");
    return m;
}

// Refuses a matrix whose symmetric part has a negative eigenvalue (relative to its size).
void CheckSemiDefinite(DeckInput& in, const SourceLocation& at, const Mat& M,
                       const std::string& what) {
    const Mat S = 0.5 * (M + M.transpose());
    const double scale = S.cwiseAbs().maxCoeff();
    if (scale == 0.0) return;
    Eigen::SelfAdjointEigenSolver<Mat> es(S, Eigen::EigenvaluesOnly);
    const double lo = es.eigenvalues().minCoeff();
    if (lo < -1e-12 * scale) {
        std::ostringstream os;
        os << what << " is not positive semi-definite (smallest eigenvalue of its symmetric part "
           << lo << ")";
        in.Fail(at, os.str());
    }
}

double GetNonNegative(DeckInput& in, const std::string& what) {
    const SourceLocation at = in.Where();
    const double v = in.GetReal(what);
    if (!std::isfinite(v) || v < 0.0) in.Fail(at, what + " must be non-negative");
    return v;
}

double GetPositive(DeckInput& in, const std::string& what) {
    const SourceLocation at = in.Where();
    const double v = in.GetReal(what);
    if (!std::isfinite(v) || v <= 0.0) in.Fail(at, what + " must be positive");
    return v;
}

// MBDyn's optional `prestress, ...` / `prestrain, ...` are not implemented: refused.
void RefusePrestress(DeckInput& in) {
    const SourceLocation at = in.Where();
    if (in.IsKeyword("prestress") || in.IsKeyword("prestrain"))
        in.Fail(at, "prestress and prestrain are not supported in constitutive laws");
}

// eq. (3): E, nu, A, J, Iy, Iz [, shear factors, ky, kz] after `section`.
Mat ReadSection(DeckInput& in) {
    const SourceLocation at_E = in.Where();
    const double E = in.GetReal("Young's modulus E");
    if (!(E > 0.0) || !std::isfinite(E)) in.Fail(at_E, "Young's modulus E must be positive");
    const SourceLocation at_nu = in.Where();
    const double nu = in.GetReal("Poisson's ratio nu");
    if (!(nu > -1.0 && nu < 0.5)) in.Fail(at_nu, "Poisson's ratio must be in (-1, 0.5)");
    const double A = GetPositive(in, "section area A");
    const double J = GetPositive(in, "torsion constant J");
    const double Iy = GetPositive(in, "second moment of area Iy");
    const double Iz = GetPositive(in, "second moment of area Iz");
    double ky = 1.0, kz = 1.0;
    if (in.IsKeyword("shear factors")) {
        ky = GetPositive(in, "shear factor ky");
        kz = GetPositive(in, "shear factor kz");
    }
    const double G = E / (2.0 * (1.0 + nu));
    Mat K = Mat::Zero(6, 6);
    K.diagonal() << E * A, ky * G * A, kz * G * A, G * J, E * Iy, E * Iz;  // eq. (3)
    return K;
}

// Scalar stiffness S, or for n = 6 with `isotropic` the section form of eq. (3).
Mat ReadIsotropicStiffness(DeckInput& in, int n, bool isotropic_keyword) {
    const SourceLocation at = in.Where();
    if (isotropic_keyword && in.IsKeyword("section")) {
        if (n != 6) in.Fail(at, "the 'section' form of an isotropic law is for 6-D laws only");
        return ReadSection(in);
    }
    const double S = in.GetReal("stiffness");
    if (!std::isfinite(S) || S < 0.0) in.Fail(at, "stiffness must be non-negative");
    return S * Mat::Identity(n, n);
}

}  // namespace

ConstitutiveLawPtr ReadLinearElastic(DeckInput& in, int n, bool isotropic_keyword) {
    const Mat K = ReadIsotropicStiffness(in, n, isotropic_keyword);
    RefusePrestress(in);
    return std::make_shared<LinearLaw>(
        isotropic_keyword ? "linear elastic isotropic" : "linear elastic", K, Mat::Zero(n, n));
}

ConstitutiveLawPtr ReadLinearElasticGeneric(DeckInput& in, int n) {
    const SourceLocation at = in.Where();
    const Mat K = GetMatrix(in, n, "stiffness matrix");
    CheckSemiDefinite(in, at, K, "stiffness matrix");
    RefusePrestress(in);
    return std::make_shared<LinearLaw>("linear elastic generic", K, Mat::Zero(n, n));
}

ConstitutiveLawPtr ReadLinearViscous(DeckInput& in, int n) {
    const double c = GetNonNegative(in, "viscosity");
    RefusePrestress(in);
    return std::make_shared<LinearLaw>("linear viscous", Mat::Zero(n, n), c * Mat::Identity(n, n));
}

ConstitutiveLawPtr ReadLinearViscousGeneric(DeckInput& in, int n) {
    const SourceLocation at = in.Where();
    const Mat C = GetMatrix(in, n, "viscosity matrix");
    CheckSemiDefinite(in, at, C, "viscosity matrix");
    RefusePrestress(in);
    return std::make_shared<LinearLaw>("linear viscous generic", Mat::Zero(n, n), C);
}

namespace {
// `{ c | proportional, f }` after K; `generic` reads a matrix c.
Mat ReadDamping(DeckInput& in, int n, const Mat& K, bool generic) {
    if (in.IsKeyword("proportional")) return GetNonNegative(in, "proportional damping factor") * K;
    const SourceLocation at = in.Where();
    if (!generic) return GetNonNegative(in, "viscosity") * Mat::Identity(n, n);
    const Mat C = GetMatrix(in, n, "viscosity matrix");
    CheckSemiDefinite(in, at, C, "viscosity matrix");
    return C;
}
}  // namespace

ConstitutiveLawPtr ReadLinearViscoelastic(DeckInput& in, int n, bool isotropic_keyword) {
    const Mat K = ReadIsotropicStiffness(in, n, isotropic_keyword);
    const Mat C = ReadDamping(in, n, K, false);
    RefusePrestress(in);
    return std::make_shared<LinearLaw>(
        isotropic_keyword ? "linear viscoelastic isotropic" : "linear viscoelastic", K, C);
}

ConstitutiveLawPtr ReadLinearViscoelasticGeneric(DeckInput& in, int n) {
    const SourceLocation at = in.Where();
    const Mat K = GetMatrix(in, n, "stiffness matrix");
    CheckSemiDefinite(in, at, K, "stiffness matrix");
    const Mat C = ReadDamping(in, n, K, true);
    RefusePrestress(in);
    return std::make_shared<LinearLaw>("linear viscoelastic generic", K, C);
}

}  // namespace mbstep::laws
