// mbstep — drives: scalar functions of time used by elements for loads and prescribed motion
// and by integrators for tunable parameters (rho_inf may be a drive, as in MBDyn).
#pragma once

#include <memory>
#include <string>

namespace mbstep {

/// A scalar function of time f(t) with its first derivative.
class Drive {
  public:
    virtual ~Drive() = default;
    /// f(t).
    virtual double Value(double t) const = 0;
    /// df/dt(t); the default is a central difference, drives with a closed form override it.
    virtual double Derivative(double t) const;
    /// True when f does not depend on t (lets parameters be checked once).
    virtual bool IsConstant() const { return false; }
};

/// Drives are shared: one `drive caller` may be used by several elements and parameters.
using DrivePtr = std::shared_ptr<const Drive>;

/// f(t) = value. Built into the core because a plain number is read as a constant drive.
class ConstDrive final : public Drive {
  public:
    explicit ConstDrive(double value) : value_(value) {}
    double Value(double) const override { return value_; }
    double Derivative(double) const override { return 0.0; }
    bool IsConstant() const override { return true; }

  private:
    double value_;
};

}  // namespace mbstep
