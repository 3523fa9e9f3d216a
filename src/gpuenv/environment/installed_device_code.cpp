#include "gpuenv/environment/installed_device_code.hpp"

#include "gpuenv/environment/device_code_check.hpp"
#include "gpuenv/environment/doctor.hpp"

namespace gpuenv::environment {

std::vector<std::string> installed_device_code_warnings(const Plan& plan, const ApplyResult& applied,
                                                        const Settings& settings) {
  if (!settings.configuration.gpuenv_check_device_code || plan.kind == ChangeKind::remove) return {};
  if (!plan.machine.cuda || applied.transaction.linked.empty()) return {};
  const auto gpus = gpus_of(*plan.machine.cuda);
  if (gpus.empty()) return {};
  std::optional<cuda_binary::CudaRelease> driver_cuda;
  if (const auto version = plan.machine.virtual_version("__cuda")) driver_cuda = cuda_release_of(*version);
  const auto table = load_ptx_isa_table();
  if (!table) return {table.error()};
  DeviceCodeCheckOptions options;
  options.names_of_binaries_only = true;
  const auto check = check_device_code_of(plan.prefix, applied.transaction.linked, gpus, driver_cuda, *table, options);
  return device_code_warnings(plan.prefix, check, gpus);
}

}  // namespace gpuenv::environment
