// Parameters described once, read and written many ways. A config struct or a scheme
// lists its parameters (key, type, range, help with the default's source) by calling a
// ParamVisitor; the scenario layer implements visitors that read and validate YAML,
// write the resolved configuration, and list documentation. Knows nothing about YAML.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace rocelab {

class ParamVisitor {
 public:
  virtual ~ParamVisitor() = default;

  virtual void flag(std::string_view key, bool& v, std::string_view help) = 0;
  virtual void integer(std::string_view key, int64_t& v, int64_t min, int64_t max,
                       std::string_view help) = 0;
  virtual void real(std::string_view key, double& v, double min, double max,
                    std::string_view help) = 0;
  // Sizes in bytes: "12MB" (decimal), "256KiB" (binary) or a plain integer.
  virtual void bytes(std::string_view key, int64_t& v, int64_t min, int64_t max,
                     std::string_view help) = 0;
  // Rates: "100Gbps", "40Gb/s", "25e9".
  virtual void rate(std::string_view key, BitsPerSec& v, BitsPerSec min, BitsPerSec max,
                    std::string_view help) = 0;
  // Durations: "1us", "500ns", "2.5ms", "0".
  virtual void duration(std::string_view key, Delta& v, Delta min, Delta max,
                        std::string_view help) = 0;
  virtual void text(std::string_view key, std::string& v, std::string_view help) = 0;
  virtual void choice(std::string_view key, std::string& v, std::span<const std::string> allowed,
                      std::string_view help) = 0;
  // A list of strings; a single scalar is read as a one-element list.
  virtual void text_list(std::string_view key, std::vector<std::string>& v,
                         std::string_view help) = 0;
  // A nested map. With `shorthand` set, a scalar value `x` stands for {shorthand: x}.
  virtual void section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
                       std::string_view help, std::string_view shorthand = {}) = 0;
  // A list of maps: `size` is read (resize then) or written; `item` visits element i.
  virtual void list(std::string_view key, size_t& size, const std::function<void(size_t)>& resize,
                    const std::function<void(ParamVisitor&, size_t)>& item,
                    std::string_view help) = 0;
  // A cross-field rule; readers report `message` against `key` when !ok.
  virtual void require(bool ok, std::string_view key, std::string_view message) = 0;
  // True when the visitor fills values in (so a describe function may react to a
  // just-read value, e.g. pick the fields of a topology type).
  virtual bool reading() const = 0;

  // Conveniences over the primitives.
  void count(std::string_view key, uint32_t& v, uint32_t min, uint32_t max, std::string_view help) {
    int64_t x = v;
    integer(key, x, min, max, help);
    v = static_cast<uint32_t>(x);
  }
  void count64(std::string_view key, uint64_t& v, uint64_t min, uint64_t max,
               std::string_view help) {
    int64_t x = static_cast<int64_t>(v);
    integer(key, x, static_cast<int64_t>(min),
            static_cast<int64_t>(std::min<uint64_t>(max, std::numeric_limits<int64_t>::max())),
            help);
    v = static_cast<uint64_t>(x);
  }
  void bytes32(std::string_view key, uint32_t& v, int64_t min, int64_t max, std::string_view help) {
    int64_t x = v;
    bytes(key, x, min, max, help);
    v = static_cast<uint32_t>(x);
  }
};

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max() / 4;

}  // namespace rocelab
