#!/usr/bin/env python3
"""Independent reference for examples/slider-crank-spatial (pure Python, no packages).

The mechanism has one degree of freedom, the crank angle theta about +x. With the model of
deck.mbd (crank centre of mass at the pivot A; rod axis 2 = C -> B; the rod's universal-joint
arm = rod axis 1, kept normal to global x, hence e1 = unit(n x x)) every position and
orientation is a closed-form function of theta; the kinetic energy is 1/2 M(theta) theta'^2
and the potential V(theta), so

    M(theta) theta'' + 1/2 M'(theta) theta'^2 + V'(theta) = 0,   theta(0) = 0, theta'(0) = 6.

First derivatives of the kinematics by complex step (exact to round-off), M' by a 4th-order
central difference, integration by RK4. usage: reference.py [N steps over 1 s] (20000 gives
the values in tests/regression/slider_crank_spatial_test.cpp; 10000 agrees to 2e-12).
"""
import cmath, math
L_C, L_R = 0.08, 0.3
A = (0.0, 0.1, 0.12)
m_c, m_r, m_s = 0.12, 0.5, 2.0
Jc = 1e-4; Jt, Ja = 0.004, 0.0004
g = 9.81
def dot(a,b): return sum(x*y for x,y in zip(a,b))
def cross(a,b): return (a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0])
def scal(s,a): return tuple(s*x for x in a)
def add(a,b): return tuple(x+y for x,y in zip(a,b))
def sub(a,b): return tuple(x-y for x,y in zip(a,b))
def unit(a): return scal(1/cmath.sqrt(dot(a,a)), a)
def kin(th):
    B = (0.0, A[1] - L_C*cmath.sin(th), A[2] + L_C*cmath.cos(th))
    xc = cmath.sqrt(L_R**2 - B[1]**2 - B[2]**2)
    C = (xc, 0.0, 0.0)
    G = scal(0.5, add(B, C))
    n = unit(sub(B, C))
    e1 = unit(cross(n, (1.0, 0.0, 0.0)))
    e3 = cross(e1, n)
    return B, C, G, (e1, n, e3)
def dkin(th, hs=1e-30):
    # complex-step derivatives of C, G, and the frame
    B, C, G, E = kin(complex(th, hs))
    re = lambda v: tuple(x.real for x in v)
    im = lambda v: tuple(x.imag/hs for x in v)
    return (re(C), im(C)), (re(G), im(G)), [(re(e), im(e)) for e in E]
def omega_theta(E):
    # spatial angular velocity per unit theta': w = 1/2 sum e_i x e_i'
    w = (0.0, 0.0, 0.0)
    for e, de in E: w = add(w, scal(0.5, cross(e, de)))
    return w
def mass(th):
    (C, dC), (G, dG), E = dkin(th)
    w = omega_theta(E)
    n = E[1][0]
    wn = dot(w, n)
    Jw = add(scal(Jt, sub(w, scal(wn, n))), scal(Ja*wn, n))
    return Jc + m_r*dot(dG, dG) + dot(w, Jw) + m_s*dC[0]**2
def dmass(th, d=1e-3):
    return (-mass(th+2*d) + 8*mass(th+d) - 8*mass(th-d) + mass(th-2*d))/(12*d)
def dpot(th):
    (C, dC), (G, dG), E = dkin(th)
    return m_r*g*dG[2]
def pot(th):
    B, C, G, E = kin(th)
    return (m_r*g*G[2] + m_c*g*A[2]).real
def rhs(y):
    th, thd = y
    return (thd, -(0.5*dmass(th)*thd**2 + dpot(th))/mass(th))
def rk4(tend, n, y=(0.0, 6.0), out=()):
    h = tend/n; res = {}
    for i in range(n):
        k1 = rhs(y); k2 = rhs((y[0]+h/2*k1[0], y[1]+h/2*k1[1]))
        k3 = rhs((y[0]+h/2*k2[0], y[1]+h/2*k2[1])); k4 = rhs((y[0]+h*k3[0], y[1]+h*k3[1]))
        y = (y[0]+h/6*(k1[0]+2*k2[0]+2*k3[0]+k4[0]), y[1]+h/6*(k1[1]+2*k2[1]+2*k3[1]+k4[1]))
        for t in out:
            if abs((i+1)*h - t) < h/4: res[t] = y
    return res
def report(th, thd):
    (C, dC), (G, dG), E = dkin(th)
    w = omega_theta(E)
    E0 = 0.5*mass(th)*thd**2 + pot(th)
    print(" theta", repr(th), "theta'", repr(thd))
    print(" slider x", repr(C[0]), "v", repr(dC[0]*thd))
    print(" rod CoM", [repr(x) for x in G], "v", [repr(x*thd) for x in dG])
    print(" rod omega", [repr(x*thd) for x in w])
    print(" rod e1", E[0][0], "e2", E[1][0], "e3", E[2][0])
    print(" energy", repr(E0))
print("t = 0"); report(0.0, 6.0)
import sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
ts = (0.25, 0.5, 1.0)
r = rk4(1.0, N, out=ts)
for t in ts:
    print("t =", t); report(*r[t])
