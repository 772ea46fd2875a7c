// mbstep — drive callers, equations (1)-(22) of drives.hpp.
#include "drives.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mbstep/common.hpp"

namespace mbstep::drives {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

// (2)-(4), Horner.
double PolynomialDrive::Value(double t) const {
    double f = 0.0;
    for (auto it = c_.rbegin(); it != c_.rend(); ++it) f = f * t + *it;
    return f;
}

double PolynomialDrive::Derivative(double t) const {
    double d = 0.0;
    for (std::size_t k = c_.size(); k-- > 1;) d = d * t + static_cast<double>(k) * c_[k];
    return d;
}

// (5)
double RampDrive::Rise(double t) const {
    if (t < t0_) return 0.0;
    return s_ * (std::min(t, tf_) - t0_);
}

double RampDrive::Value(double t) const { return v0_ + Rise(t); }

double RampDrive::Derivative(double t) const { return (t >= t0_ && t < tf_) ? s_ : 0.0; }

// (9), (10)
HarmonicDrive::HarmonicDrive(bool cosine, double t0, double omega, double amplitude, long cycles,
                             double v0)
    : cosine_(cosine), t0_(t0), omega_(omega), a_(amplitude), v0_(v0), te_(kInf), fe_(v0) {
    const double period = 2.0 * M_PI / omega;
    const double n = static_cast<double>(std::abs(cycles));
    if (cycles > 0) {
        te_ = t0 + period * (cosine ? n : n - 0.5);
        fe_ = v0;
    } else if (cycles < 0) {
        te_ = t0 + period * (cosine ? n - 0.5 : n - 0.75);
        fe_ = v0 + (cosine ? 2.0 * amplitude : amplitude);
    }
}

double HarmonicDrive::Value(double t) const {
    if (t <= t0_) return v0_;
    if (t >= te_) return fe_;
    const double phase = omega_ * (t - t0_);
    return cosine_ ? v0_ + a_ * (1.0 - std::cos(phase)) : v0_ + a_ * std::sin(phase);
}

double HarmonicDrive::Derivative(double t) const {
    if (t < t0_ || t >= te_) return 0.0;
    const double phase = omega_ * (t - t0_);
    return cosine_ ? a_ * omega_ * std::sin(phase) : a_ * omega_ * std::cos(phase);
}

// (11)
double PiecewiseLinearDrive::Value(double t) const {
    if (t <= t_.front()) return v_.front();
    if (t >= t_.back()) return v_.back();
    const std::size_t i =
        static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
    const double r = (t - t_[i - 1]) / (t_[i] - t_[i - 1]);
    return v_[i - 1] + r * (v_[i] - v_[i - 1]);
}

double PiecewiseLinearDrive::Derivative(double t) const {
    if (t < t_.front() || t >= t_.back()) return 0.0;
    const std::size_t i =
        static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
    return (v_[i] - v_[i - 1]) / (t_[i] - t_[i - 1]);
}

// (12): evaluation errors (integer division by zero) surface as run errors.
double StringDrive::Value(double t) const {
    try {
        return e_->EvaluateReal(t);
    } catch (const ExpressionError& err) {
        throw RunError("string drive at t = " + std::to_string(t) + ": " + err.message());
    }
}

double StringDrive::Derivative(double t) const {
    try {
        return e_->Derivative(t);
    } catch (const ExpressionError& err) {
        throw RunError("string drive at t = " + std::to_string(t) + ": " + err.message());
    }
}

// (16)
double TanhDrive::Value(double t) const { return v0_ + a_ * std::tanh(b_ * (t - t0_)); }

double TanhDrive::Derivative(double t) const {
    const double th = std::tanh(b_ * (t - t0_));
    return a_ * b_ * (1.0 - th * th);
}

// (17)
double ExponentialDrive::Value(double t) const {
    if (t < t0_) return v0_;
    return v0_ + a_ * (1.0 - std::exp(-(t - t0_) / tau_));
}

double ExponentialDrive::Derivative(double t) const {
    if (t < t0_) return 0.0;
    return a_ / tau_ * std::exp(-(t - t0_) / tau_);
}

// (18), (19)
double CombinedDrive::Value(double t) const {
    double f = product_ ? 1.0 : 0.0;
    for (const DrivePtr& d : d_) f = product_ ? f * d->Value(t) : f + d->Value(t);
    return f;
}

double CombinedDrive::Derivative(double t) const {
    if (!product_) {
        double s = 0.0;
        for (const DrivePtr& d : d_) s += d->Derivative(t);
        return s;
    }
    // Product rule over all factors.
    double s = 0.0;
    for (std::size_t i = 0; i < d_.size(); ++i) {
        double term = d_[i]->Derivative(t);
        for (std::size_t j = 0; j < d_.size(); ++j)
            if (j != i) term *= d_[j]->Value(t);
        s += term;
    }
    return s;
}

bool CombinedDrive::IsConstant() const {
    return std::all_of(d_.begin(), d_.end(), [](const DrivePtr& d) { return d->IsConstant(); });
}

// (21)
double PeriodicDrive::Value(double t) const {
    if (t < t0_) return 0.0;
    const double tau = t - t0_;
    return g_->Value(tau - T_ * std::floor(tau / T_));
}

double PeriodicDrive::Derivative(double t) const {
    if (t < t0_) return 0.0;
    const double tau = t - t0_;
    return g_->Derivative(tau - T_ * std::floor(tau / T_));
}

}  // namespace mbstep::drives
