// mbstep — constitutive laws: the generalized force of a deformable element as a function of
// its generalized strain and strain rate (MBDyn manual, "Constitutive Laws"). Dimension 1
// (rods: axial strain), 3 (deformable hinges: relative rotation) or 6 (beam sections: axial
// and shear strains, torsion and bending curvatures, in the section frame).
//
// With e the strain and e' its rate (N components each):
//   (1) f   = F(e, e')        generalized force (N components)
//   (2) D_e = dF/de           (N x N)
//   (3) D_v = dF/de'          (N x N)
// A linear law is f = K e + C e' with constant K, C (IsLinear() and Stiffness()/Damping()
// return them, so that an element may apply them without calling Evaluate).
//
// Laws are plugins of their own kind (Registry::Add(ConstitutiveLawDescriptor)): an element
// reads its law with DeckInput::GetConstitutiveLaw(N, ...), which accepts a registered law
// keyword with its arguments or `reference, <label>` to a `constitutive law: <label>, N,
// ...;` definition. Laws are immutable after reading and may be shared by several elements.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>

namespace mbstep {

class ConstitutiveLaw {
  public:
    static constexpr int kMaxDimension = 6;
    using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxDimension, 1>;
    using Mat =
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxDimension, kMaxDimension>;

    explicit ConstitutiveLaw(int dimension) : dimension_(dimension) {}
    virtual ~ConstitutiveLaw() = default;

    int dimension() const { return dimension_; }
    /// (1)-(3): f, and when non-null D_e and D_v, at strain e and rate ep (dimension() each).
    virtual void Evaluate(const Vec& e, const Vec& ep, Vec& f, Mat* De, Mat* Dv) const = 0;
    /// True if f depends on e' (viscous or viscoelastic laws).
    virtual bool IsViscous() const = 0;
    /// True for f = K e + C e' with constant K (Stiffness) and C (Damping).
    virtual bool IsLinear() const { return false; }
    virtual Mat Stiffness() const { return Mat::Zero(dimension_, dimension_); }
    virtual Mat Damping() const { return Mat::Zero(dimension_, dimension_); }
    /// Stored elastic energy at strain e (0 for laws that do not define one).
    virtual double Energy(const Vec& /*e*/) const { return 0.0; }
    /// One line for the .log: the law's keyword and parameters.
    virtual std::string Describe() const = 0;

  private:
    int dimension_;
};

using ConstitutiveLawPtr = std::shared_ptr<const ConstitutiveLaw>;

}  // namespace mbstep
