// mbstep — numbers for the text outputs without iostream or printf: with std::ostream the output
// files of a small model cost more than its steps (docs/DESIGN.md, "Input and output").
#pragma once

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

namespace mbstep {

/// Room FormatNumber needs at its `first`.
inline constexpr int kMaxNumberChars = 48;

namespace number_format_detail {

/// a b = p + e exactly, barring overflow (T. J. Dekker, "A floating-point technique for
/// extending the available precision", Numer. Math. 18 (1971) 224-242: Veltkamp's splitting
/// into 26-bit halves; with a fused multiply-add, e = fma(a, b, -p)).
constexpr void DekkerProduct(double a, double b, double& p, double& e) {
    constexpr double kSplit = 134217729.0;  // 2^27 + 1
    p = a * b;
    const double ca = kSplit * a, cb = kSplit * b;
    const double ah = ca - (ca - a), al = a - ah;
    const double bh = cb - (cb - b), bl = b - bh;
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

inline void TwoProduct(double a, double b, double& p, double& e) {
#ifdef __FMA__
    p = a * b;
    e = std::fma(a, b, -p);
#else
    DekkerProduct(a, b, p, e);
#endif
}

inline constexpr int kMaxPower = 44;

/// 10^k = hi[k + 44] + lo[k + 44] for |k| <= 44: exact for k >= 0 (10^k is a double up to
/// k = 22, beyond it the exact product 10^22 10^(k-22)); for k < 0 within about 2^-104
/// relative (10^k - hi = (1 - p - e) 10^k with hi 10^-k = p + e exactly, then products).
struct Powers10 {
    double hi[2 * kMaxPower + 1]{}, lo[2 * kMaxPower + 1]{};
    std::uint64_t integer[20]{};  ///< 10^k, k = 0..19
    constexpr Powers10() {
        double exact = 1.0;
        for (int k = 0; k <= 22; ++k, exact *= 10.0) hi[kMaxPower + k] = exact;
        for (int k = 23; k <= kMaxPower; ++k)
            DekkerProduct(1e22, hi[kMaxPower + k - 22], hi[kMaxPower + k], lo[kMaxPower + k]);
        for (int k = 1; k <= 22; ++k) {
            const double t = hi[kMaxPower + k];
            const double h = 1.0 / t;
            double p = 0.0, e = 0.0;
            DekkerProduct(h, t, p, e);
            hi[kMaxPower - k] = h;
            lo[kMaxPower - k] = ((1.0 - p) - e) / t;
        }
        for (int k = 23; k <= kMaxPower; ++k) {  // 10^-22 10^-(k-22), double-double product
            const double ah = hi[kMaxPower - 22], al = lo[kMaxPower - 22];
            const double bh = hi[kMaxPower - (k - 22)], bl = lo[kMaxPower - (k - 22)];
            double p = 0.0, e = 0.0;
            DekkerProduct(ah, bh, p, e);
            const double l = e + (ah * bl + al * bh);
            hi[kMaxPower - k] = p + l;
            lo[kMaxPower - k] = l - (hi[kMaxPower - k] - p);
        }
        std::uint64_t n = 1;
        for (int k = 0; k < 20; ++k, n *= 10) integer[k] = n;
    }
};
inline constexpr Powers10 kPowers10{};

/// "00" "01" ... "99".
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr bool kLittleEndian = true;
#else
inline constexpr bool kLittleEndian = false;  // FormatNumber always takes std::to_chars
#endif

/// Up to 16 characters in two words, character i in byte i (little-endian memory order), so
/// that they are built and stored without byte-wise stores and reloads.
struct Chars16 {
    std::uint64_t lo{0}, hi{0};
};

/// Drops the first `n` characters, 0 <= n <= 16.
inline Chars16 Skip(Chars16 c, int n) {
    if (n == 0) return c;
    if (n < 8) return {(c.lo >> (8 * n)) | (c.hi << (64 - 8 * n)), c.hi >> (8 * n)};
    if (n < 16) return {c.hi >> (8 * (n - 8)), 0};
    return {};
}

/// Stores all 16 bytes at o.
inline void Store(char* o, Chars16 c) {
    std::memcpy(o, &c.lo, 8);
    std::memcpy(o + 8, &c.hi, 8);
}

inline int LeadingZeroBits(std::uint64_t x) {  // x != 0
#if defined(__GNUC__)
    return __builtin_clzll(x);
#else
    int n = 0;
    for (std::uint64_t bit = std::uint64_t{1} << 63; !(x & bit); bit >>= 1) ++n;
    return n;
#endif
}

/// The 8 digits of v < 10^8, the first in the lowest byte.
inline std::uint64_t Digits8(std::uint32_t v) {
    const std::uint32_t a = v / 10000, b = v % 10000;
    std::uint16_t d[4];
    std::memcpy(&d[0], kDigitPairs + std::size_t{2} * (a / 100), 2);
    std::memcpy(&d[1], kDigitPairs + std::size_t{2} * (a % 100), 2);
    std::memcpy(&d[2], kDigitPairs + std::size_t{2} * (b / 100), 2);
    std::memcpy(&d[3], kDigitPairs + std::size_t{2} * (b % 100), 2);
    return std::uint64_t{d[0]} | std::uint64_t{d[1]} << 16 | std::uint64_t{d[2]} << 32 |
           std::uint64_t{d[3]} << 48;
}

/// The `count` digits of 10^(count-1) <= n < 10^count, 1 <= count <= 16; `kept` is their number
/// without the trailing zeros.
inline Chars16 Digits(std::uint64_t n, int count, int& kept) {
    constexpr std::uint64_t kZeros = 0x3030303030303030;  // "00000000"
    Chars16 s, zeros;
    if (count <= 8) {
        s.lo = Digits8(static_cast<std::uint32_t>(n)) >> (8 * (8 - count));
        zeros.lo = kZeros >> (8 * (8 - count));
    } else {  // n / 10^8 (count - 8 digits) and n % 10^8, in two independent chains
        const std::uint64_t high = n / 100000000;
        const std::uint64_t wh = Digits8(static_cast<std::uint32_t>(high)) >> (8 * (16 - count));
        const std::uint64_t wl = Digits8(static_cast<std::uint32_t>(n - high * 100000000));
        const int h = count - 8;
        s.lo = h == 8 ? wh : wh | (wl << (8 * h));
        s.hi = h == 8 ? wl : wl >> (64 - 8 * h);
        zeros.lo = kZeros;
        zeros.hi = kZeros >> (8 * (16 - count));
    }
    // The high zero bytes of s ^ zeros: the bytes beyond `count` and the trailing '0's.
    const std::uint64_t xlo = s.lo ^ zeros.lo, xhi = s.hi ^ zeros.hi;
    kept = xhi ? 16 - LeadingZeroBits(xhi) / 8 : 8 - LeadingZeroBits(xlo) / 8;
    return s;
}

/// std::to_chars(general, precision), out of line: FormatNumber's rare exact path.
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
inline char*
ToCharsGeneral(char* first, double v, int precision) {
    return std::to_chars(first, first + kMaxNumberChars, v, std::chars_format::general, precision)
        .ptr;
}

}  // namespace number_format_detail

/// Writes v at `first` exactly as printf's "%.*g" with `precision` in the C locale (what
/// std::ostream writes with setprecision(precision) and the default float field) and returns the
/// end; `first` must have room for kMaxNumberChars characters (it writes past the end of the
/// number).
///
/// std::to_chars(general, precision) is exact but expands v digit by digit. Here, for
/// precisions p <= 16 and normal v = m 2^q (m < 2^53), with e the decimal exponent of v, the p
/// digits are y = |v| 10^(p-1-e) (10^(p-1) <= y < 10^p) rounded to an integer, ties to even as
/// printf rounds the exact value. y is formed exactly in 128-bit integers when 0 <= p-1-e <= 19
/// (m 10^(p-1-e), then shifted by q), else as a double-double: exactly for 10^20..10^44, within
/// about 2^-103 y for 10^-44..10^-1 (the table below). Where that approximation cannot decide
/// (y's fraction within 2^-100 y of 1/2), beyond the table, for p = 17 and for subnormal and
/// non-finite v, std::to_chars writes the number.
inline char* FormatNumber(char* first, double v, int precision) {
    using namespace number_format_detail;
    if (precision <= 0) precision = 1;  // "%.0g" is "%.1g"
    if (v == 0.0) {
        if (std::signbit(v)) *first++ = '-';
        *first++ = '0';
        return first;
    }
    const double a = std::fabs(v);
    auto exact = [&] { return ToCharsGeneral(first, v, precision); };
    if (!kLittleEndian || precision > 16 || !(a >= DBL_MIN && a <= DBL_MAX))
        return exact();  // subnormal, inf, nan
    // Decimal exponent e: a in [2^(b-1), 2^b) gives floor((b - 1) log10 2) = e or e - 1; then
    // a >= 10^(e+1) decides (for 10^(e+1) = hi + lo inexact, a > hi, or a = hi and lo <= 0:
    // a double above hi is at least hi + ulp(hi) > hi + lo).
    std::uint64_t bits = 0;
    std::memcpy(&bits, &a, sizeof bits);
    const int b = static_cast<int>(bits >> 52) - 1022;
    int e = ((b - 1) * 78913) >> 18;  // floor((b - 1) log10 2) for |b - 1| < 1650
    const int s = precision - 1 - e;
    if (s - 1 < -kMaxPower || s > kMaxPower || e + 1 > kMaxPower || e + 1 < -kMaxPower)
        return exact();
    const double next_hi = kPowers10.hi[kMaxPower + e + 1],
                 next_lo = kPowers10.lo[kMaxPower + e + 1];
    const int up = static_cast<int>(a > next_hi) |
                   (static_cast<int>(a == next_hi) & static_cast<int>(next_lo <= 0.0));
    e += up;
    // n = y = a 10^(p-1-e) (10^(p-1) <= y < 10^p) rounded to an integer, ties to even.
    const int k = s - up;
    std::uint64_t n = 0;
#if defined(__SIZEOF_INT128__)
    if (k >= 0 && k <= 19) {  // exactly in integers: a = m 2^q, y = m 10^k 2^q
        __extension__ typedef unsigned __int128 U128;
        const std::uint64_t m = (bits & ((std::uint64_t{1} << 52) - 1)) | std::uint64_t{1} << 52;
        const int q = static_cast<int>(bits >> 52) - 1075;
        const U128 product = static_cast<U128>(m) * kPowers10.integer[k];  // < 2^117
        if (q >= 0) {  // a >= 2^52 is an integer (p = 16, k = 0)
            n = static_cast<std::uint64_t>(product << q);
        } else {  // 1 <= -q <= 117: y >= 1
            n = static_cast<std::uint64_t>(product >> -q);
            const U128 rest = product & ((U128{1} << -q) - 1), half = U128{1} << (-q - 1);
            n += static_cast<std::uint64_t>(rest > half) |
                 (static_cast<std::uint64_t>(rest == half) & n);  // ties to even
        }
    } else
#endif
    {  // as a double-double yh + yl: exact for k >= 0, within about 2^-103 y for k < 0
        const double ph = kPowers10.hi[kMaxPower + k], pl = kPowers10.lo[kMaxPower + k];
        double p = 0.0, err = 0.0;
        TwoProduct(a, ph, p, err);
        const double l = err + a * pl;
        const double yh = p + l, yl = l - (yh - p);
        const double margin = k < 0 ? 0x1p-100 * yh : 0.0;
        // n = floor(y), d = (y - n) - 1/2.
        double d = 0.0;
        if (yh < 0x1p52) {  // yh - n and (yh - n) - 1/2 are exact
            n = static_cast<std::uint64_t>(yh);
            d = ((yh - static_cast<double>(n)) - 0.5) + yl;
        } else {  // yh is an integer
            const double fl = std::floor(yl);
            n = static_cast<std::uint64_t>(yh) +
                static_cast<std::uint64_t>(static_cast<std::int64_t>(fl));
            d = (yl - fl) - 0.5;
        }
        if (std::fabs(d) <= margin) return exact();  // margin 0: d is exact, a tie is d == 0
        if (d > 0.0 || (d == 0.0 && (n & 1))) ++n;
    }
    if (n == kPowers10.integer[precision]) {  // carried into a new digit
        n /= 10;
        ++e;
    }
    if (n < kPowers10.integer[precision - 1]) return exact();
    // The digits of n without the trailing zeros (%g drops them), placed by word stores.
    int count = 0;
    const Chars16 digits = Digits(n, precision, count);
    char* o = first;
    if (v < 0.0) *o++ = '-';
    if (e < -4 || e >= precision) {  // d.ddde+xx
        *o++ = static_cast<char>(digits.lo & 0xff);
        if (count > 1) {
            *o++ = '.';
            Store(o, Skip(digits, 1));
            o += count - 1;
        }
        *o++ = 'e';
        *o++ = e < 0 ? '-' : '+';
        int x = e < 0 ? -e : e;
        if (x >= 100) {
            *o++ = static_cast<char>('0' + x / 100);
            x %= 100;
        }
        *o++ = static_cast<char>('0' + x / 10);
        *o++ = static_cast<char>('0' + x % 10);
    } else if (e >= 0) {  // ddd[.ddd]
        Store(o, digits);
        if (count > e + 1) {  // digits before and after the point
            o += e + 1;
            *o++ = '.';
            Store(o, Skip(digits, e + 1));
            o += count - e - 1;
        } else {  // an integer: its digits, then zeros
            o += count;
            std::memset(o, '0', 16);
            o += e + 1 - count;
        }
    } else {  // 0.000ddd
        o[0] = '0';
        o[1] = '.';
        std::memset(o + 2, '0', 4);
        o += 1 - e;
        Store(o, digits);
        o += count;
    }
    return o;
}

/// Writes the decimal digits of an integer (a label, a step number) at `first` and returns the
/// end; room for 24 characters.
inline char* FormatNumber(char* first, long v) { return std::to_chars(first, first + 24, v).ptr; }

/// Writes " x y z" (a space before each number) and returns the end; room for
/// 3 (kMaxNumberChars + 1) characters.
template <class V>
char* FormatVector3(char* o, const V& v, int precision) {
    for (int i = 0; i < 3; ++i) {
        *o++ = ' ';
        o = FormatNumber(o, v[i], precision);
    }
    return o;
}

/// Appends v as FormatNumber writes it.
inline void AppendNumber(std::string& out, double v, int precision) {
    char buf[kMaxNumberChars];
    out.append(buf, static_cast<size_t>(FormatNumber(buf, v, precision) - buf));
}

/// Appends the decimal digits of an integer (a label, a step number).
inline void AppendNumber(std::string& out, long v) {
    char buf[24];
    out.append(buf, static_cast<size_t>(FormatNumber(buf, v) - buf));
}

/// Appends " x y z" (a space before each number).
template <class V>
void AppendVector3(std::string& out, const V& v, int precision) {
    char buf[3 * (kMaxNumberChars + 1)];
    out.append(buf, static_cast<size_t>(FormatVector3(buf, v, precision) - buf));
}

/// Writes one line of an element's output file (.jnt, .act): the label, then the numbers c, each
/// after a space, at the stream's precision, formatted into a buffer on the stack (one write per
/// 1 KiB of line: no allocation per output step).
inline void WriteNumberLine(std::ostream& os, long label, const std::vector<double>& c) {
    const int p = static_cast<int>(os.precision());
    char line[1024];
    char* o = FormatNumber(line, label);
    for (double v : c) {
        if (o + kMaxNumberChars + 2 > line + sizeof line) {
            os.write(line, static_cast<std::streamsize>(o - line));
            o = line;
        }
        *o++ = ' ';
        o = FormatNumber(o, v, p);
    }
    *o++ = '\n';
    os.write(line, static_cast<std::streamsize>(o - line));
}

}  // namespace mbstep
