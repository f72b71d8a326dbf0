// ParamVisitors over YAML: a strict reader (types, ranges, unknown keys with "did you
// mean", file:line in every message), a writer for config.resolved.yaml, and a lister
// that documents every parameter with its default.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/params.h"

namespace rocelab {

// A scenario problem the user must fix: `rocelab` exits with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The closest of `candidates` to `word` when it is a plausible typo, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
// "expected one of: a, b; got 'x' (did you mean 'a'?)": the message for a name that is not
// among `allowed`, the same whether a choice key or a registry lookup finds it.
std::string not_one_of(const std::string& got, std::span<const std::string> allowed);

class YamlReader final : public ParamVisitor {
 public:
  // `node` must be a map (or null: everything keeps its default).
  YamlReader(const YAML::Node& node, std::string file, std::string path);
  // Records "dotted.key" -> line of every key read, so that later checks (host names,
  // files) can point at the line too.
  void set_line_index(std::map<std::string, int>* index) { line_index_ = index; }
  // Throws ConfigError for keys that no describe() asked for.
  void finish() const;

  void flag(std::string_view key, bool& v, std::string_view help) override;
  void integer(std::string_view key, int64_t& v, int64_t min, int64_t max,
               std::string_view help) override;
  void real(std::string_view key, double& v, double min, double max,
            std::string_view help) override;
  void bytes(std::string_view key, int64_t& v, int64_t min, int64_t max,
             std::string_view help) override;
  void rate(std::string_view key, BitsPerSec& v, BitsPerSec min, BitsPerSec max,
            std::string_view help) override;
  void duration(std::string_view key, Delta& v, Delta min, Delta max,
                std::string_view help) override;
  void text(std::string_view key, std::string& v, std::string_view help) override;
  void choice(std::string_view key, std::string& v, std::span<const std::string> allowed,
              std::string_view help) override;
  void text_list(std::string_view key, std::vector<std::string>& v, std::string_view help) override;
  void section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
               std::string_view help, std::string_view shorthand) override;
  void list(std::string_view key, size_t& size, const std::function<void(size_t)>& resize,
            const std::function<void(ParamVisitor&, size_t)>& item, std::string_view help) override;
  void require(bool ok, std::string_view key, std::string_view message) override;
  bool reading() const override { return true; }

 private:
  // The scalar text of `key`, or nullopt when absent. Throws when it is not a scalar.
  std::optional<std::string> scalar(std::string_view key, std::string_view expected);
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  int line_of(std::string_view key) const;

  std::string where(std::string_view key) const;
  std::string full_key(std::string_view key) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::set<std::string> visited_;
  int line_hint_ = 0;  // for maps made from shorthand scalars, which carry no position
  std::map<std::string, int>* line_index_ = nullptr;
};

class YamlWriter final : public ParamVisitor {
 public:
  explicit YamlWriter(YAML::Emitter& out) : out_(out) {}

  void flag(std::string_view key, bool& v, std::string_view help) override;
  void integer(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view) override;
  void real(std::string_view key, double& v, double, double, std::string_view) override;
  void bytes(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view) override;
  void rate(std::string_view key, BitsPerSec& v, BitsPerSec, BitsPerSec, std::string_view) override;
  void duration(std::string_view key, Delta& v, Delta, Delta, std::string_view) override;
  void text(std::string_view key, std::string& v, std::string_view) override;
  void choice(std::string_view key, std::string& v, std::span<const std::string>,
              std::string_view) override;
  void text_list(std::string_view key, std::vector<std::string>& v, std::string_view) override;
  void section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
               std::string_view, std::string_view) override;
  void list(std::string_view key, size_t& size, const std::function<void(size_t)>&,
            const std::function<void(ParamVisitor&, size_t)>& item, std::string_view) override;
  void require(bool, std::string_view, std::string_view) override {}
  bool reading() const override { return false; }

 private:
  void put(std::string_view key, const std::string& value);
  YAML::Emitter& out_;
};

// Markdown table rows `| key | default | description |` for every parameter.
class ParamLister final : public ParamVisitor {
 public:
  explicit ParamLister(std::string prefix = {}) : prefix_(std::move(prefix)) {}
  const std::string& rows() const { return rows_; }

  void flag(std::string_view key, bool& v, std::string_view help) override;
  void integer(std::string_view key, int64_t& v, int64_t min, int64_t max,
               std::string_view help) override;
  void real(std::string_view key, double& v, double min, double max,
            std::string_view help) override;
  void bytes(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view help) override;
  void rate(std::string_view key, BitsPerSec& v, BitsPerSec, BitsPerSec,
            std::string_view help) override;
  void duration(std::string_view key, Delta& v, Delta, Delta, std::string_view help) override;
  void text(std::string_view key, std::string& v, std::string_view help) override;
  void choice(std::string_view key, std::string& v, std::span<const std::string> allowed,
              std::string_view help) override;
  void text_list(std::string_view key, std::vector<std::string>& v, std::string_view help) override;
  void section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
               std::string_view help, std::string_view) override;
  void list(std::string_view key, size_t& size, const std::function<void(size_t)>& resize,
            const std::function<void(ParamVisitor&, size_t)>& item, std::string_view help) override;
  void require(bool, std::string_view, std::string_view) override {}
  bool reading() const override { return false; }

 private:
  void row(std::string_view key, const std::string& value, std::string_view help);
  std::string prefix_;
  std::string rows_;
};

}  // namespace rocelab
