// mbstep — the model lines of MBDyn's .log file, which Blendyn (the Blender add-on for MBDyn)
// and mboct read to rebuild a model: one line per structural node and per element, written as
// MBDyn's input reader writes them [MBDyn sources: ReadStructNode (mbdyn/struct/strnode.cc),
// ReadBody (mbdyn/struct/body.cc), ReadJoint (mbdyn/struct/joint.cc), ReadBeam and ReadBeam2
// (mbdyn/struct/beam.cc, beam2.cc)]:
//
//   (0) output frequency: <n>
//   (1) structural node: <label> <x y z> euler123|euler313|euler321 <3 angles, degrees>
//                                        | phi <rotation vector> | mat <R row by row>
//       (the node's `orientation description`, as its .mov columns); a dummy node `offset`
//       writes the same line, a dummy node `relative frame` begins it with `relative frame
//       structural node:` (its pose as the .mov has it)
//   (2) <keyword>: <label> <node label> <field> ... (one element)
//   (3) struct node dofs|eqs|momentum dofs|momentum eqs: <index> ... and
//       struct node labels: <label> ..., each repeated as `struct displacement node ...`:
//       the 0-based index of each node's first unknown and equation in MBDyn's own numbering
//       (DataManager::DofInit, mbdyn/base/dataman2.cc): the nodes in deck order, a static node
//       6 unknowns (dofs = eqs = its first index), a dynamic node 12 (dofs = d, eqs = d + 6,
//       momentum dofs = d + 6, momentum eqs = d; static nodes have no momentum entry), as
//       MBDyn's .log of its test decks has them; abstract nodes are counted before them, one
//       unknown each (MBDyn numbers abstract nodes first; not checked against an MBDyn .log)
//
// Fields are separated by one space; a vector is its 3 components, a matrix its 9 entries row
// by row (MBDyn's Vec3 and Mat3x3 operator<<). Readers split a line on spaces and dispatch on
// the words up to the first one ending in ':' (Blendyn: at most the first four words); a line
// they do not know is skipped. So the .log holds no empty line and no line ending in a space.
#pragma once

#include <string>

#include "mbstep/common.hpp"

namespace mbstep {

class Model;

/// Builds one line (2): `LogLine("sphericalhinge", 3, p).Node(1).Vec(f1).Mat(R1)...str()`.
class LogLine {
  public:
    LogLine(const char* keyword, int label, int precision);
    LogLine& Node(int label);
    LogLine& Real(double v);
    LogLine& Vec(const Vec3& v);
    LogLine& Mat(const Mat3& R);  ///< row by row
    const std::string& str() const { return s_; }

  private:
    std::string s_;
    int precision_;
};

/// The MBDyn-layout lines of the model, each with its newline: (0), the structural nodes in
/// deck order and then the dummy nodes (1), the elements' ElementOutput::MbdynLogLine in deck
/// order (2), then (3); from the nodes' initial states as read from the deck (call it before
/// the initial joint assembly). output_every: the deck's `output frequency`.
std::string MbdynModelLog(const Model& model, int output_every, int precision);

}  // namespace mbstep
