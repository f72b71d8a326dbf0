#include "scenario/config/yaml_params.h"

#include <algorithm>
#include <optional>

#include "sim/units.h"

namespace rocelab {

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string join(std::span<const std::string> items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}
}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string not_one_of(const std::string& got, std::span<const std::string> allowed) {
  const std::string hint =
      did_you_mean(got, std::vector<std::string>(allowed.begin(), allowed.end()));
  return "expected one of: " + join(allowed) + "; got '" + got + "'" +
         (hint.empty() ? "" : " (did you mean '" + hint + "'?)");
}

// ---------------------------------------------------------------- reader

YamlReader::YamlReader(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (node_ && !node_.IsNull() && !node_.IsMap()) {
    const int line = node_.Mark().line + 1;
    throw ConfigError(file_ + ":" + std::to_string(line > 0 ? line : 1) + ": " +
                      (path_.empty() ? std::string("the scenario") : path_) +
                      " must be a map of key: value");
  }
}

int YamlReader::line_of(std::string_view key) const {
  if (node_ && node_.IsMap()) {
    for (const auto& kv : node_)
      if (kv.first.Scalar() == key) return kv.first.Mark().line + 1;  // 0: made by --set
    const int line = node_.Mark().line + 1;
    if (line > 0) return line;
  }
  return line_hint_;
}

std::string YamlReader::full_key(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

// "file:line" for keys from the file; values set by --set carry no position.
std::string YamlReader::where(std::string_view key) const {
  const int line = line_of(key);
  return line > 0 ? file_ + ":" + std::to_string(line) : file_ + ": --set";
}

void YamlReader::fail(std::string_view key, const std::string& message) const {
  throw ConfigError(where(key) + ": " + full_key(key) + ": " + message);
}

void YamlReader::finish() const {
  if (!node_ || !node_.IsMap()) return;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) {
      throw ConfigError(file_ + ":" + std::to_string(kv.first.Mark().line + 1) + ": " +
                        (path_.empty() ? "" : path_ + ": ") + "keys must be plain words");
    }
    const std::string k = kv.first.Scalar();
    if (visited_.count(k)) continue;
    std::vector<std::string> known(visited_.begin(), visited_.end());
    const std::string hint = did_you_mean(k, known);
    std::string msg = "unknown key";
    if (!hint.empty())
      msg += "; did you mean '" + hint + "'?";
    else if (!known.empty())
      msg += "; known keys here: " + join(known);
    fail(k, msg);
  }
}

std::optional<std::string> YamlReader::scalar(std::string_view key, std::string_view expected) {
  visited_.insert(std::string(key));
  if (line_index_) (*line_index_)[full_key(key)] = line_of(key);
  if (!node_ || !node_.IsMap()) return std::nullopt;
  const YAML::Node v = node_[std::string(key)];
  if (!v) return std::nullopt;
  if (v.IsNull()) fail(key, "expected " + std::string(expected) + ", got nothing");
  if (!v.IsScalar())
    fail(key, "expected " + std::string(expected) + ", got a " + (v.IsMap() ? "map" : "list"));
  return v.Scalar();
}

void YamlReader::flag(std::string_view key, bool& v, std::string_view) {
  const auto s = scalar(key, "true or false");
  if (!s) return;
  static const std::set<std::string> yes = {"true", "True", "TRUE", "yes", "on"};
  static const std::set<std::string> no = {"false", "False", "FALSE", "no", "off"};
  if (yes.count(*s))
    v = true;
  else if (no.count(*s))
    v = false;
  else
    fail(key, "expected true or false, got '" + *s + "'");
}

namespace {
template <class T>
std::string range_text(T min, T max, std::string (*fmt)(T)) {
  return "[" + fmt(min) + ", " + (max >= kNoLimit ? std::string("...") : fmt(max)) + "]";
}
std::string int_text(int64_t v) {
  return std::to_string(v);
}
std::string delta_text(Delta d) {
  return format_duration(d);
}
}  // namespace

void YamlReader::integer(std::string_view key, int64_t& v, int64_t min, int64_t max,
                         std::string_view) {
  const auto s = scalar(key, "an integer");
  if (!s) return;
  std::string why;
  const auto x = parse_integer(*s, &why);
  if (!x) fail(key, why);
  if (*x < min || *x > max)
    fail(key, "expected an integer in " + range_text<int64_t>(min, max, int_text) + ", got " + *s);
  v = *x;
}

void YamlReader::real(std::string_view key, double& v, double min, double max, std::string_view) {
  const auto s = scalar(key, "a number");
  if (!s) return;
  std::string why;
  const auto x = parse_real(*s, &why);
  if (!x) fail(key, why);
  if (*x < min || *x > max)
    fail(key,
         "expected a number in [" + format_real(min) + ", " + format_real(max) + "], got " + *s);
  v = *x;
}

void YamlReader::bytes(std::string_view key, int64_t& v, int64_t min, int64_t max,
                       std::string_view) {
  const auto s = scalar(key, "a byte size like 12MB");
  if (!s) return;
  std::string why;
  const auto x = parse_bytes(*s, &why);
  if (!x) fail(key, why);
  if (*x < min || *x > max)
    fail(key, "expected a size in " + range_text<int64_t>(min, max, format_bytes) + ", got " + *s);
  v = *x;
}

void YamlReader::rate(std::string_view key, BitsPerSec& v, BitsPerSec min, BitsPerSec max,
                      std::string_view) {
  const auto s = scalar(key, "a rate like 100Gbps");
  if (!s) return;
  std::string why;
  const auto x = parse_rate(*s, &why);
  if (!x) fail(key, why);
  if (*x < min || *x > max)
    fail(key,
         "expected a rate in " + range_text<BitsPerSec>(min, max, format_rate) + ", got " + *s);
  v = *x;
}

void YamlReader::duration(std::string_view key, Delta& v, Delta min, Delta max, std::string_view) {
  const auto s = scalar(key, "a duration like 1us");
  if (!s) return;
  std::string why;
  const auto x = parse_duration(*s, &why);
  if (!x) fail(key, why);
  if (*x < min || *x > max)
    fail(key, "expected a duration in [" + delta_text(min) + ", " +
                  (max >= Delta::max() ? std::string("...") : delta_text(max)) + "], got " + *s);
  v = *x;
}

void YamlReader::text(std::string_view key, std::string& v, std::string_view) {
  const auto s = scalar(key, "a string");
  if (s) v = *s;
}

void YamlReader::choice(std::string_view key, std::string& v, std::span<const std::string> allowed,
                        std::string_view) {
  const auto s = scalar(key, "one of: " + join(allowed));
  if (!s) return;
  if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end())
    fail(key, not_one_of(*s, allowed));
  v = *s;
}

void YamlReader::text_list(std::string_view key, std::vector<std::string>& v, std::string_view) {
  visited_.insert(std::string(key));
  if (line_index_) (*line_index_)[full_key(key)] = line_of(key);
  if (!node_ || !node_.IsMap()) return;
  const YAML::Node n = node_[std::string(key)];
  if (!n) return;
  if (n.IsScalar()) {
    v = {n.Scalar()};
    return;
  }
  if (!n.IsSequence()) fail(key, "expected a list of names or a single name");
  v.clear();
  for (const auto& item : n) {
    if (!item.IsScalar()) fail(key, "expected a list of plain values");
    v.push_back(item.Scalar());
  }
}

void YamlReader::section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
                         std::string_view, std::string_view shorthand) {
  visited_.insert(std::string(key));
  YAML::Node child;
  if (node_ && node_.IsMap()) child = node_[std::string(key)];
  const std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (child && child.IsScalar() && !shorthand.empty()) {
    YAML::Node expanded(YAML::NodeType::Map);
    expanded[std::string(shorthand)] = child.Scalar();
    YamlReader r(expanded, file_, path);
    r.line_hint_ = line_of(key);
    r.line_index_ = line_index_;
    body(r);
    r.finish();
    return;
  }
  if (child && child.IsNull()) child = YAML::Node();
  YamlReader r(child, file_, path);
  r.line_hint_ = line_of(key);
  r.line_index_ = line_index_;
  body(r);
  r.finish();
}

void YamlReader::list(std::string_view key, size_t& size, const std::function<void(size_t)>& resize,
                      const std::function<void(ParamVisitor&, size_t)>& item, std::string_view) {
  visited_.insert(std::string(key));
  if (!node_ || !node_.IsMap()) return;
  const YAML::Node n = node_[std::string(key)];
  if (!n) return;
  if (!n.IsSequence()) fail(key, "expected a list (each item starting with '- ')");
  if (line_index_) (*line_index_)[full_key(key)] = line_of(key);
  size = n.size();
  resize(size);
  const std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  for (size_t i = 0; i < size; ++i) {
    YamlReader r(n[i], file_, path + "." + std::to_string(i));
    r.line_hint_ = line_of(key);
    r.line_index_ = line_index_;
    if (line_index_) (*line_index_)[path + "." + std::to_string(i)] = n[i].Mark().line + 1;
    item(r, i);
    r.finish();
  }
}

void YamlReader::require(bool ok, std::string_view key, std::string_view message) {
  if (!ok) fail(key, std::string(message));
}

// ---------------------------------------------------------------- writer

void YamlWriter::put(std::string_view key, const std::string& value) {
  out_ << YAML::Key << std::string(key) << YAML::Value << value;
}
void YamlWriter::flag(std::string_view key, bool& v, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << v;
}
void YamlWriter::integer(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << v;
}
void YamlWriter::real(std::string_view key, double& v, double, double, std::string_view) {
  put(key, format_real(v));
}
void YamlWriter::bytes(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view) {
  put(key, format_bytes(v));
}
void YamlWriter::rate(std::string_view key, BitsPerSec& v, BitsPerSec, BitsPerSec,
                      std::string_view) {
  put(key, format_rate(v));
}
void YamlWriter::duration(std::string_view key, Delta& v, Delta, Delta, std::string_view) {
  put(key, format_duration(v));
}
void YamlWriter::text(std::string_view key, std::string& v, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << YAML::DoubleQuoted << v;
}
void YamlWriter::choice(std::string_view key, std::string& v, std::span<const std::string>,
                        std::string_view) {
  put(key, v);
}
void YamlWriter::text_list(std::string_view key, std::vector<std::string>& v, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& s : v) out_ << s;
  out_ << YAML::EndSeq;
}
void YamlWriter::section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
                         std::string_view, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
  body(*this);
  out_ << YAML::EndMap;
}
void YamlWriter::list(std::string_view key, size_t& size, const std::function<void(size_t)>&,
                      const std::function<void(ParamVisitor&, size_t)>& item, std::string_view) {
  out_ << YAML::Key << std::string(key) << YAML::Value << YAML::BeginSeq;
  for (size_t i = 0; i < size; ++i) {
    out_ << YAML::BeginMap;
    item(*this, i);
    out_ << YAML::EndMap;
  }
  out_ << YAML::EndSeq;
}

// ---------------------------------------------------------------- lister

void ParamLister::row(std::string_view key, const std::string& value, std::string_view help) {
  rows_ +=
      "| `" + prefix_ + std::string(key) + "` | `" + value + "` | " + std::string(help) + " |\n";
}
void ParamLister::flag(std::string_view key, bool& v, std::string_view help) {
  row(key, v ? "true" : "false", help);
}
void ParamLister::integer(std::string_view key, int64_t& v, int64_t, int64_t,
                          std::string_view help) {
  row(key, std::to_string(v), help);
}
void ParamLister::real(std::string_view key, double& v, double, double, std::string_view help) {
  row(key, format_real(v), help);
}
void ParamLister::bytes(std::string_view key, int64_t& v, int64_t, int64_t, std::string_view help) {
  row(key, format_bytes(v), help);
}
void ParamLister::rate(std::string_view key, BitsPerSec& v, BitsPerSec, BitsPerSec,
                       std::string_view help) {
  row(key, format_rate(v), help);
}
void ParamLister::duration(std::string_view key, Delta& v, Delta, Delta, std::string_view help) {
  row(key, format_duration(v), help);
}
void ParamLister::text(std::string_view key, std::string& v, std::string_view help) {
  row(key, v, help);
}
void ParamLister::choice(std::string_view key, std::string& v, std::span<const std::string> allowed,
                         std::string_view help) {
  row(key, v, std::string(help) + " (one of: " + join(allowed) + ")");
}
void ParamLister::text_list(std::string_view key, std::vector<std::string>& v,
                            std::string_view help) {
  row(key, "[" + join(v) + "]", help);
}
void ParamLister::section(std::string_view key, const std::function<void(ParamVisitor&)>& body,
                          std::string_view, std::string_view) {
  ParamLister child(prefix_ + std::string(key) + ".");
  body(child);
  rows_ += child.rows();
}
void ParamLister::list(std::string_view key, size_t& size, const std::function<void(size_t)>&,
                       const std::function<void(ParamVisitor&, size_t)>& item,
                       std::string_view help) {
  row(key, "[...]", help);
  for (size_t i = 0; i < size; ++i) {
    ParamLister child(prefix_ + std::string(key) + "." + std::to_string(i) + ".");
    item(child, i);
    rows_ += child.rows();
  }
}

}  // namespace rocelab
