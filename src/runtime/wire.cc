#include "runtime/wire.h"

namespace weft::runtime {

v1::ResourceVector ToProto(const Resources& r) {
  v1::ResourceVector v;
  v.set_cpu(r.units(kCpu));
  v.set_mem(r.units(kMem));
  v.set_disk(r.units(kDisk));
  v.set_net(r.units(kNet));
  return v;
}

absl::StatusOr<Resources> FromProto(const v1::ResourceVector& v) {
  return Resources::FromUnits({v.cpu(), v.mem(), v.disk(), v.net()});
}

std::vector<std::string> SplitAddresses(const std::string& list) {
  std::vector<std::string> out;
  for (size_t begin = 0; begin <= list.size();) {
    const size_t end = std::min(list.find(',', begin), list.size());
    if (end > begin) out.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

}  // namespace weft::runtime
