// A virtual package (CEP 30): a name starting with "__", a version and a
// build that stand for a fact about the machine (__cuda=13.0=0). The system
// module detects them; the solver only needs this value.
#pragma once

#include <string>

namespace gpuenv::specs {

// Plain strings: a virtual package's version only has to be a valid CEP 33
// version string, and neither side needs version arithmetic on it.
struct VirtualPackage {
  std::string name;
  std::string version;
  std::string build;

  std::string str() const { return name + "=" + version + "=" + build; }  // "__cuda=12.4=0", as conda prints it
  friend bool operator==(const VirtualPackage&, const VirtualPackage&) = default;
};

}  // namespace gpuenv::specs
