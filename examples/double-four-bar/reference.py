#!/usr/bin/env python3
"""Exact 1-DOF solution of examples/double-four-bar on the parallelogram branch (pure Python).

phi = crank angle from the vertical (about +y). Kinetic energy 1/2 (3 m L^2) phi'^2 (three
cranks m L^2 / 3 each about their hinges, two couplers translating at L phi'), potential
3.5 m g L cos(phi):  3 phi'' = 3.5 g sin(phi), phi(0) = 0, phi'(0) = 1 (m = L = 1).
Prints phi, phi' at the test's times (RK4 at two step sizes) and the time of one turn,
T = integral over one turn of dphi / phi', phi'^2 = 1 + (7 g / 3)(1 - cos phi) (Simpson).
"""
import math

G = 9.81


def f(y):
    return (y[1], 7.0 * G / 6.0 * math.sin(y[0]))


def rk4(tend, n):
    h = tend / n
    y = (0.0, 1.0)
    for _ in range(n):
        k1 = f(y)
        k2 = f((y[0] + h / 2 * k1[0], y[1] + h / 2 * k1[1]))
        k3 = f((y[0] + h / 2 * k2[0], y[1] + h / 2 * k2[1]))
        k4 = f((y[0] + h * k3[0], y[1] + h * k3[1]))
        y = (y[0] + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
             y[1] + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]))
    return y


def revolution(n):
    rate = lambda p: math.sqrt(1.0 + 7.0 * G / 3.0 * (1.0 - math.cos(p)))
    h = 2.0 * math.pi / n
    s = 1.0 / rate(0.0) + 1.0 / rate(2.0 * math.pi)
    for i in range(1, n):
        s += (4.0 if i % 2 else 2.0) / rate(i * h)
    return s * h / 3.0


def main():
    for t in (0.5, 1.0, 1.5, 2.0, 10.0):
        a, b = rk4(t, int(t * 40000)), rk4(t, int(t * 80000))
        print(f"t = {t}: phi = {b[0]!r}, phi' = {b[1]!r}  (step-halving change {b[0] - a[0]:.1e})")
    print(f"one turn: {revolution(40000)!r} s (n = 20000: {revolution(20000)!r})")


if __name__ == "__main__":
    main()
