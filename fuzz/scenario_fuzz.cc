// libFuzzer target for the scenario loader: any input must either load or raise a
// ConfigError (exit 2 in the command). Any other exception, crash or sanitizer report is
// a bug. Built with clang (-DROCELAB_FUZZ=ON); scripts/test.sh runs it briefly.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenario/config/scenario_config.h"
#include "scenario/config/yaml_params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rocelab::ScenarioConfig c = rocelab::load_scenario_text(text, "fuzz.yaml");
    const std::string resolved = rocelab::resolved_yaml(c);
    // What we write must read back.
    rocelab::load_scenario_text(resolved, "resolved.yaml");
  } catch (const rocelab::ConfigError&) {
  }
  return 0;
}
