// mbstep — drive callers: scalar functions of time f(t) with their analytic derivative f'(t)
// (MBDyn manual, input/general.tex, "Drives and Drive Callers"; value semantics checked
// against MBDyn's drive callers, including the end of the sine/cosine cycles).
//
// Deck syntax and formulas (t0 initial time, v0 initial value; a clause "t < t0" etc.
// gives f, and f' = 0 wherever f is constant):
//   (1)  const, c                          f = c
//   (2)  linear, c0, c1                    f = c0 + c1 t
//   (3)  parabolic, c0, c1, c2             f = c0 + c1 t + c2 t^2
//   (4)  cubic, c0, c1, c2, c3             f = c0 + c1 t + c2 t^2 + c3 t^3
//   (5)  ramp, s, t0, tf|forever, v0       f = v0 (t < t0);  v0 + s (t - t0) (t0 <= t <= tf);
//                                          v0 + s (tf - t0) (t > tf)
//   (6)  double ramp, sa, ta0, taf, sd, td0, tdf|forever, v0
//                                          f = v0 + ramp(sa, ta0, taf) + ramp(sd, td0, tdf),
//                                          the ramps of (5) without v0; requires taf <= td0
//   (7)  step, t0, s, v0                   f = v0 (t < t0);  v0 + s (t >= t0)
//   (8)  double step, t0, tf, s, v0        f = v0 + s for t0 <= t <= tf, else v0
//   (9)  sine, t0, w, A, N|half|one|forever, v0
//                                          f = v0 + A sin(w (t - t0)) for t0 < t < te, v0 for
//                                          t <= t0, fe for t >= te; N > 0: te = t0 + 2 pi/w
//                                          (N - 1/2), fe = v0 (ends at a zero crossing);
//                                          N < 0: te = t0 + 2 pi/w (|N| - 3/4), fe = v0 + A
//                                          (ends at the top); one = 1, half = -1, forever = 0
//   (10) cosine, t0, w, A, N|half|one|forever, v0
//                                          f = v0 + A (1 - cos(w (t - t0))) for t0 < t < te;
//                                          N > 0: te = t0 + 2 pi N/w, fe = v0;
//                                          N < 0: te = t0 + 2 pi/w (|N| - 1/2), fe = v0 + 2 A
//   (11) piecewise linear, n, t1, v1, ..., tn, vn
//                                          linear interpolation, t1 < ... < tn, n >= 2;
//                                          f = v1 for t <= t1, vn for t >= tn
//   (12) string, "expression of Time"      f and f' from the expression tree (forward-mode
//                                          differentiation, io/expression.hpp)
//   (13) time                              f = t
//   (14) null                              f = 0
//   (15) unit; one (MBDyn's older name)    f = 1
//   (16) tanh, t0, A, b, v0                f = v0 + A tanh(b (t - t0))
//   (17) exponential, A, tau, t0, v0       f = v0 (t < t0);  v0 + A (1 - exp(-(t - t0)/tau))
//   (18) mult, <drive>, <drive>            f = f1 f2
//   (19) array, n, <drive>, ...            f = sum of the n drives
//   (20) drive, <drive g>, <drive h>       f = g(h(t)) (function of a function)
//   (21) periodic, t0, T, <drive g>        f = 0 (t < t0);  g(t - t0 - T floor((t - t0)/T))
//   (22) direct                            f = t (the input passed through)
// At the break points of (5)-(11), (17), (21) f' is the one-sided derivative from the right.
//
// Units: times in s, angular velocities in rad/s; values in the unit of the driven quantity.
#pragma once

#include <memory>
#include <vector>

#include "mbstep/io/expression.hpp"
#include "mbstep/model/drive.hpp"

namespace mbstep::drives {

/// (2)-(4): f = sum c_k t^k.
class PolynomialDrive final : public Drive {
  public:
    explicit PolynomialDrive(std::vector<double> c) : c_(std::move(c)) {}
    double Value(double t) const override;
    double Derivative(double t) const override;
    bool IsConstant() const override { return c_.size() < 2; }

  private:
    std::vector<double> c_;
};

/// (5); tf = +inf for `forever`.
class RampDrive final : public Drive {
  public:
    RampDrive(double slope, double t0, double tf, double v0)
        : s_(slope), t0_(t0), tf_(tf), v0_(v0) {}
    double Value(double t) const override;
    double Derivative(double t) const override;
    /// The ramp without v0 (used by the double ramp).
    double Rise(double t) const;
    RampDrive WithInitialValue(double v0) const { return RampDrive(s_, t0_, tf_, v0); }
    double initial_time() const { return t0_; }
    double final_time() const { return tf_; }

  private:
    double s_, t0_, tf_, v0_;
};

/// (6).
class DoubleRampDrive final : public Drive {
  public:
    DoubleRampDrive(RampDrive a, RampDrive d, double v0) : a_(a), d_(d), v0_(v0) {}
    double Value(double t) const override { return v0_ + a_.Rise(t) + d_.Rise(t); }
    double Derivative(double t) const override { return a_.Derivative(t) + d_.Derivative(t); }

  private:
    RampDrive a_, d_;
    double v0_;
};

/// (7) and (8); tf = +inf for the single step.
class StepDrive final : public Drive {
  public:
    StepDrive(double t0, double tf, double s, double v0) : t0_(t0), tf_(tf), s_(s), v0_(v0) {}
    double Value(double t) const override { return (t >= t0_ && t <= tf_) ? v0_ + s_ : v0_; }
    double Derivative(double) const override { return 0.0; }

  private:
    double t0_, tf_, s_, v0_;
};

/// (9) and (10).
class HarmonicDrive final : public Drive {
  public:
    /// cycles: N as in (9)/(10) (0 = forever).
    HarmonicDrive(bool cosine, double t0, double omega, double amplitude, long cycles, double v0);
    double Value(double t) const override;
    double Derivative(double t) const override;

  private:
    bool cosine_;
    double t0_, omega_, a_, v0_;
    double te_;  ///< end time, +inf when forever
    double fe_;  ///< value after te
};

/// (11).
class PiecewiseLinearDrive final : public Drive {
  public:
    PiecewiseLinearDrive(std::vector<double> t, std::vector<double> v)
        : t_(std::move(t)), v_(std::move(v)) {}
    double Value(double t) const override;
    double Derivative(double t) const override;

  private:
    std::vector<double> t_, v_;
};

/// (12).
class StringDrive final : public Drive {
  public:
    explicit StringDrive(std::shared_ptr<const Expression> e) : e_(std::move(e)) {}
    double Value(double t) const override;
    double Derivative(double t) const override;
    bool IsConstant() const override { return !e_->depends_on_time(); }

  private:
    std::shared_ptr<const Expression> e_;
};

/// (13), (22).
class TimeDrive final : public Drive {
  public:
    double Value(double t) const override { return t; }
    double Derivative(double) const override { return 1.0; }
};

/// (16).
class TanhDrive final : public Drive {
  public:
    TanhDrive(double t0, double a, double b, double v0) : t0_(t0), a_(a), b_(b), v0_(v0) {}
    double Value(double t) const override;
    double Derivative(double t) const override;

  private:
    double t0_, a_, b_, v0_;
};

/// (17).
class ExponentialDrive final : public Drive {
  public:
    ExponentialDrive(double a, double tau, double t0, double v0)
        : a_(a), tau_(tau), t0_(t0), v0_(v0) {}
    double Value(double t) const override;
    double Derivative(double t) const override;

  private:
    double a_, tau_, t0_, v0_;
};

/// (18) and (19): product or sum of sub-drives.
class CombinedDrive final : public Drive {
  public:
    CombinedDrive(bool product, std::vector<DrivePtr> d) : product_(product), d_(std::move(d)) {}
    double Value(double t) const override;
    double Derivative(double t) const override;
    bool IsConstant() const override;

  private:
    bool product_;
    std::vector<DrivePtr> d_;
};

/// (20).
class CompositeDrive final : public Drive {
  public:
    CompositeDrive(DrivePtr outer, DrivePtr inner) : g_(std::move(outer)), h_(std::move(inner)) {}
    double Value(double t) const override { return g_->Value(h_->Value(t)); }
    double Derivative(double t) const override {
        return g_->Derivative(h_->Value(t)) * h_->Derivative(t);
    }

  private:
    DrivePtr g_, h_;
};

/// (21).
class PeriodicDrive final : public Drive {
  public:
    PeriodicDrive(double t0, double period, DrivePtr g) : t0_(t0), T_(period), g_(std::move(g)) {}
    double Value(double t) const override;
    double Derivative(double t) const override;

  private:
    double t0_, T_;
    DrivePtr g_;
};

}  // namespace mbstep::drives
