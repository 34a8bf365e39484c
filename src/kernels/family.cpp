// family_of: the one place that maps a kernel's traits to its family.
#include "kernels/family.hpp"

namespace gconv {

const KernelFamily& family_of(const KernelTraits& t) {
  switch (t.family) {
    case Family::igemm: return igemm_family();
    case Family::direct: return direct_family();
    case Family::wgmma: return wgmma_family();
    case Family::tinyc: return tinyc_family();
    case Family::pw: return pw_family();
  }
  return igemm_family();  // unreachable for valid enum values
}

}  // namespace gconv
