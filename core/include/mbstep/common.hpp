// mbstep — common types: fixed-size Eigen aliases, source locations and the error types.
#pragma once

#include <Eigen/Dense>
#include <stdexcept>
#include <string>

namespace mbstep {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

/// A position in an input file (1-based line and column).
struct SourceLocation {
    std::string file;
    int line{0};
    int column{0};
    std::string ToString() const {
        return file + ":" + std::to_string(line) + ":" + std::to_string(column);
    }
};

/// Malformed or invalid input: printed as `file:line:column: message`.
class DeckError : public std::runtime_error {
  public:
    DeckError(SourceLocation where, const std::string& message)
        : std::runtime_error(where.ToString() + ": " + message),
          where_(std::move(where)),
          message_(message) {}
    const SourceLocation& where() const { return where_; }
    const std::string& message() const { return message_; }

  private:
    SourceLocation where_;
    std::string message_;
};

/// A failure while running (Newton divergence, singular matrix, invalid parameter, plugin).
class RunError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace mbstep
