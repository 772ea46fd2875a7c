// mbstep — linear constitutive laws of dimension N = 1, 3, 6 (MBDyn manual, "Constitutive
// Laws": linear elastic, linear viscous, linear viscoelastic and their isotropic and generic
// forms). With e the strain, e' its rate (model/constitutive_law.hpp):
//
//   (1) f = K e + C e'                       D_e = K, D_v = C
//   (2) energy = 1/2 e^T K e                 (symmetric part of K)
//
// Keywords and arguments (K, C are N x N; S, c scalars; a matrix is read as `eye | null |
// diag, N values | sym, N(N+1)/2 values (upper triangle by rows) | [matr,] N^2 values (by
// rows)`, optionally followed by `scale, s`; for N = 1 a matrix is one number):
//   linear elastic [isotropic], S                 K = S I, C = 0
//   linear elastic generic, K                     C = 0
//   linear viscous [isotropic], c                 K = 0, C = c I
//   linear viscous generic, C                     K = 0
//   linear viscoelastic [isotropic], S, { c | proportional, f }      K = S I, C = c I or f K
//   linear viscoelastic generic, K, { C | proportional, f }          C = C or f K
// and, for N = 6 only, mbstep's beam-section form of an isotropic material (principal axes,
// section frame: axis 1 along the beam; not in MBDyn, whose 6-D `isotropic` law is S I):
//   linear elastic isotropic, section, E, nu, A, J, Iy, Iz [, shear factors, ky, kz]
//   linear viscoelastic isotropic, section, E, nu, A, J, Iy, Iz [, shear factors, ky, kz],
//       { c | proportional, f }
//   (3) K = diag(E A, ky G A, kz G A, G J, E Iy, E Iz),  G = E / (2 (1 + nu)),
//       ky = kz = 1 unless given.
// Units: N = 1 (rods) K [N] per unit strain, C [N s]; N = 3 (hinges) [N m/rad], [N m s/rad];
// N = 6 (beams) [N] for the strains, [N m^2] for the curvatures, C likewise times [s].
// Refused: a stiffness or damping whose symmetric part has a negative eigenvalue, E <= 0,
// nu outside (-1, 0.5), non-positive section data, `prestress`/`prestrain` (not implemented).
#pragma once

#include <string>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/constitutive_law.hpp"

namespace mbstep::laws {

class LinearLaw final : public ConstitutiveLaw {
  public:
    LinearLaw(std::string keyword, const Mat& K, const Mat& C);
    void Evaluate(const Vec& e, const Vec& ep, Vec& f, Mat* De, Mat* Dv) const override;
    bool IsViscous() const override { return viscous_; }
    bool IsLinear() const override { return true; }
    Mat Stiffness() const override { return K_; }
    Mat Damping() const override { return C_; }
    double Energy(const Vec& e) const override;
    std::string Describe() const override;

  private:
    std::string keyword_;
    Mat K_, C_;
    bool viscous_;
};

/// Readers of the keywords above (the keyword itself already consumed).
ConstitutiveLawPtr ReadLinearElastic(DeckInput& in, int n, bool isotropic_keyword);
ConstitutiveLawPtr ReadLinearElasticGeneric(DeckInput& in, int n);
ConstitutiveLawPtr ReadLinearViscous(DeckInput& in, int n);
ConstitutiveLawPtr ReadLinearViscousGeneric(DeckInput& in, int n);
ConstitutiveLawPtr ReadLinearViscoelastic(DeckInput& in, int n, bool isotropic_keyword);
ConstitutiveLawPtr ReadLinearViscoelasticGeneric(DeckInput& in, int n);

}  // namespace mbstep::laws
