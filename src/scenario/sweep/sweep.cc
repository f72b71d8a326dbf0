#include "scenario/sweep/sweep.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "scenario/config/yaml_params.h"
#include "scenario/run/runner.h"

namespace rocelab {

namespace fs = std::filesystem;

namespace {

struct Reader {
  std::string file;
  std::string at(const YAML::Node& n) const {
    return file + ":" + std::to_string(n.Mark().line + 1) + ": ";
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key,
                         const std::string& why) const {
    throw ConfigError(at(n) + key + ": " + why);
  }
  // Rejects keys outside `allowed`, with a suggestion.
  void only(const YAML::Node& map, const std::string& where,
            const std::vector<std::string>& allowed) const {
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
      const std::string hint = did_you_mean(k, allowed);
      fail(kv.first, where.empty() ? k : where + "." + k,
           "unknown key" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
  }
};

// A value as --set takes it: scalars as written, lists and maps in flow style.
std::string value_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << n;
  return out.c_str();
}

std::vector<std::string> read_sets(const Reader& r, const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) r.fail(n, key, "expected a map of dotted.key: value");
  std::vector<std::string> out;
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (k.empty() || k.find('=') != std::string::npos) r.fail(kv.first, key, "bad key '" + k + "'");
    out.push_back(k + "=" + value_text(kv.second));
  }
  return out;
}

bool is_integer_text(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

double number(const Reader& r, const YAML::Node& n, const std::string& key) {
  if (!n || !n.IsScalar()) r.fail(n, key, "expected a number");
  try {
    size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used == n.Scalar().size() && std::isfinite(v)) return v;
  } catch (...) {
  }
  r.fail(n, key, "expected a number, got '" + n.Scalar() + "'");
}

// {from, to, step}: inclusive, without floating-point drift in the printed values.
std::vector<std::string> read_range(const Reader& r, const YAML::Node& n, const std::string& key) {
  r.only(n, key, {"from", "to", "step"});
  for (const char* k : {"from", "to", "step"})
    if (!n[k])
      r.fail(n, key, std::string("a range needs from, to and step; '") + k + "' is missing");
  const double from = number(r, n["from"], key + ".from");
  const double to = number(r, n["to"], key + ".to");
  const double step = number(r, n["step"], key + ".step");
  if (step <= 0) r.fail(n["step"], key + ".step", "must be > 0");
  if (to < from) r.fail(n["to"], key + ".to", "must be >= from");
  const double count = std::floor((to - from) / step + 1e-9) + 1;
  if (count > 10000) r.fail(n, key, "more than 10000 values");
  const bool integers = is_integer_text(n["from"].Scalar()) && is_integer_text(n["step"].Scalar());
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(count); ++i) {
    const double v = from + i * step;
    out.push_back(integers ? fmt::format("{}", static_cast<int64_t>(std::llround(v)))
                           : fmt::format("{:.10g}", v));
  }
  return out;
}

std::vector<std::string> read_values(const Reader& r, const YAML::Node& n, const std::string& key) {
  std::vector<std::string> out;
  if (n.IsSequence()) {
    for (const auto& v : n) out.push_back(value_text(v));
  } else if (n.IsMap()) {
    out = read_range(r, n, key);
  } else {
    r.fail(n, key, "expected a list of values or a range {from, to, step}");
  }
  if (out.empty()) r.fail(n, key, "no values");
  std::set<std::string> seen;
  for (const auto& v : out)
    if (!seen.insert(v).second) r.fail(n, key, "value '" + v + "' given twice");
  return out;
}

// A directory-name-safe form of a label; long or unusual labels end in a short hash.
std::string path_safe(const std::string& s) {
  std::string out;
  for (char ch : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ||
                      ch == '_' || ch == '+' || ch == '=' || ch == ',';
    out += keep ? ch : '_';
  }
  if (out.size() > 80 || out != s) {
    // FNV-1a: stable across platforms and runs, unlike std::hash.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
    out = fmt::format("{}~{:08x}", out.substr(0, 60), static_cast<uint32_t>(h ^ (h >> 32)));
  }
  return out;
}

std::string last_component(const std::string& key) {
  const size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

SweepScheme read_scheme(const Reader& r, const YAML::Node& n) {
  SweepScheme s;
  std::string text;
  if (n.IsScalar()) {
    text = n.Scalar();
  } else if (n.IsMap()) {
    r.only(n, "schemes[]", {"name", "scheme", "set"});
    if (!n["scheme"] || !n["scheme"].IsScalar())
      r.fail(n, "schemes[].scheme", "expected LB+CC[+FC], e.g. flb+rc");
    text = n["scheme"].Scalar();
    if (n["set"]) s.sets = read_sets(r, n["set"], "schemes[].set");
    if (n["name"]) s.label = n["name"].as<std::string>();
  } else {
    r.fail(n, "schemes[]", "expected LB+CC[+FC] or {name, scheme, set}");
  }
  std::vector<SchemeTriple> t;
  try {
    t = parse_schemes(text);
  } catch (const ConfigError& e) {
    r.fail(n, "schemes", e.what());
  }
  if (t.size() != 1) r.fail(n, "schemes[]", "one LB+CC[+FC] per entry");
  s.lb = t[0].lb;
  s.cc = t[0].cc;
  s.fc = t[0].fc;
  if (s.label.empty()) s.label = t[0].label();
  if (path_safe(s.label) != s.label)
    r.fail(n, "schemes[].name", "'" + s.label + "': use letters, digits and . - _ + only");
  return s;
}

std::vector<int64_t> read_seeds(const Reader& r, const YAML::Node& n) {
  std::vector<int64_t> out;
  auto seed = [&](const YAML::Node& v) {
    if (!v.IsScalar() || !is_integer_text(v.Scalar()) || v.Scalar()[0] == '-')
      r.fail(v, "seeds", "expected a non-negative integer");
    return static_cast<int64_t>(std::stoll(v.Scalar()));
  };
  if (n.IsSequence()) {
    for (const auto& v : n) out.push_back(seed(v));
  } else if (n.IsMap()) {
    r.only(n, "seeds", {"from", "to"});
    if (!n["from"] || !n["to"]) r.fail(n, "seeds", "a range needs from and to");
    const int64_t a = seed(n["from"]), b = seed(n["to"]);
    if (b < a || b - a >= 100000) r.fail(n, "seeds", "expected from <= to, at most 100000 seeds");
    for (int64_t s = a; s <= b; ++s) out.push_back(s);
  } else {
    r.fail(n, "seeds", "expected a list of integers or {from, to}");
  }
  if (out.empty()) r.fail(n, "seeds", "no seeds");
  std::set<int64_t> seen;
  for (int64_t s : out)
    if (!seen.insert(s).second) r.fail(n, "seeds", fmt::format("seed {} given twice", s));
  return out;
}

void expand_points(Sweep& s) {
  // Short column names: the last component of each key, unless two keys share it.
  std::map<std::string, int> uses;
  for (const auto& a : s.grid) ++uses[last_component(a.key)];
  std::vector<size_t> idx(s.grid.size(), 0);
  const size_t n_cases = std::max<size_t>(1, s.cases.size());
  for (;;) {
    for (size_t c = 0; c < n_cases; ++c) {
      SweepPoint p;
      std::string id;
      for (size_t a = 0; a < s.grid.size(); ++a) {
        const auto& axis = s.grid[a];
        const std::string& v = axis.values[idx[a]];
        p.coords.emplace_back(axis.key, v);
        p.sets.push_back(axis.key + "=" + v);
        const std::string name =
            uses[last_component(axis.key)] > 1 ? axis.key : last_component(axis.key);
        id += (id.empty() ? "" : ",") + name + "=" + v;
      }
      if (!s.cases.empty()) {
        p.coords.emplace_back("case", s.cases[c].name);
        p.sets.insert(p.sets.end(), s.cases[c].sets.begin(), s.cases[c].sets.end());
        id += (id.empty() ? "" : ",") + s.cases[c].name;
      }
      p.id = id.empty() ? "base" : path_safe(id);
      s.points.push_back(std::move(p));
    }
    size_t a = s.grid.size();
    while (a > 0 && ++idx[a - 1] == s.grid[a - 1].values.size()) idx[--a] = 0;
    if (a == 0) break;
  }
  for (size_t p = 0; p < s.points.size(); ++p)
    for (size_t k = 0; k < s.schemes.size(); ++k)
      for (int64_t seed : s.seeds)
        s.runs.push_back(
            {p, k, seed,
             fmt::format("runs/{}/{}/seed-{}", s.points[p].id, s.schemes[k].label, seed)});
}

}  // namespace

// "1..5" or "1,2,3" (the --seeds option).
static std::vector<int64_t> parse_seed_list(const std::string& text) {
  const std::string bad = "--seeds " + text + ": expected FROM..TO or a list like 1,2,3";
  std::vector<int64_t> out;
  auto integer = [&](const std::string& s) {
    if (!is_integer_text(s) || s[0] == '-') throw ConfigError(bad);
    return static_cast<int64_t>(std::stoll(s));
  };
  const size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const int64_t a = integer(text.substr(0, dots)), b = integer(text.substr(dots + 2));
    if (b < a || b - a >= 100000) throw ConfigError(bad);
    for (int64_t s = a; s <= b; ++s) out.push_back(s);
    return out;
  }
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(integer(item));
  if (out.empty()) throw ConfigError(bad);
  return out;
}

Sweep load_sweep_text(const std::string& text, const std::string& file, const std::string& dir,
                      const std::string& seeds_override) {
  Reader r{file};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root || !root.IsMap()) throw ConfigError(file + ":1: a sweep file is a map of key: value");
  r.only(root, "",
         {"name", "description", "scenario", "set", "grid", "cases", "schemes", "seeds", "x"});
  Sweep s;
  s.file = file;
  if (!root["scenario"] || !root["scenario"].IsScalar())
    throw ConfigError(file +
                      ":1: scenario: required: the base scenario file, relative to this one");
  const fs::path sc = root["scenario"].Scalar();
  s.scenario_path = (sc.is_absolute() ? sc : fs::absolute(fs::path(dir) / sc)).lexically_normal();
  if (root["set"]) s.sets = read_sets(r, root["set"], "set");
  if (root["grid"]) {
    if (!root["grid"].IsMap()) r.fail(root["grid"], "grid", "expected a map of dotted.key: values");
    for (const auto& kv : root["grid"]) {
      const std::string k = kv.first.as<std::string>();
      s.grid.push_back({k, read_values(r, kv.second, "grid." + k)});
    }
  }
  if (root["cases"]) {
    if (!root["cases"].IsSequence())
      r.fail(root["cases"], "cases", "expected a list of {name, set}");
    std::set<std::string> names;
    for (const auto& n : root["cases"]) {
      if (!n.IsMap()) r.fail(n, "cases[]", "expected {name, set}");
      r.only(n, "cases[]", {"name", "set"});
      if (!n["name"] || !n["name"].IsScalar()) r.fail(n, "cases[].name", "required");
      SweepCase c{n["name"].Scalar(), {}};
      if (path_safe(c.name) != c.name || c.name.find(',') != std::string::npos)
        r.fail(n["name"], "cases[].name", "'" + c.name + "': use letters, digits and . - _ + only");
      if (!names.insert(c.name).second) r.fail(n, "cases[].name", "'" + c.name + "' given twice");
      if (n["set"]) c.sets = read_sets(r, n["set"], "cases[].set");
      s.cases.push_back(std::move(c));
    }
  }
  // The base scenario, with the sweep's own settings: its scheme and seed are the defaults.
  const ScenarioConfig base = load_scenario(s.scenario_path, s.sets);
  s.base_lb = base.lb;
  s.base_cc = base.cc;
  s.base_fc = base.fc;
  if (root["schemes"]) {
    if (!root["schemes"].IsSequence() || root["schemes"].size() == 0)
      r.fail(root["schemes"], "schemes", "expected a list of LB+CC[+FC]");
    std::set<std::string> labels;
    for (const auto& n : root["schemes"]) {
      s.schemes.push_back(read_scheme(r, n));
      if (!labels.insert(s.schemes.back().label).second)
        r.fail(n, "schemes", "'" + s.schemes.back().label + "' given twice; name one of them");
    }
  } else {
    s.schemes.push_back({base.lb + "+" + base.cc + "+" + base.fc, base.lb, base.cc, base.fc, {}});
  }
  s.seeds = root["seeds"] ? read_seeds(r, root["seeds"]) : std::vector<int64_t>{base.seed};
  if (!seeds_override.empty()) s.seeds = parse_seed_list(seeds_override);
  if (root["x"]) {
    s.x_key = root["x"].as<std::string>();
    bool known = false;
    for (const auto& a : s.grid) known |= a.key == s.x_key;
    if (!known) r.fail(root["x"], "x", "'" + s.x_key + "' is not a grid key");
  }
  expand_points(s);
  // Every point and scheme must make a valid scenario before anything runs: a misspelled key
  // fails here, naming it, rather than in every run.
  for (size_t p = 0; p < s.points.size(); ++p)
    for (size_t k = 0; k < s.schemes.size(); ++k) {
      try {
        s.config_of({p, k, s.seeds[0], ""});
      } catch (const ConfigError& e) {
        throw ConfigError(file + ": point " + s.points[p].id + ", scheme " + s.schemes[k].label +
                          ": " + e.what());
      }
    }
  return s;
}

Sweep load_sweep(const std::string& path, const std::string& seeds) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the sweep file");
  std::stringstream buf;
  buf << in.rdbuf();
  return load_sweep_text(buf.str(), path, fs::absolute(path).parent_path().string(), seeds);
}

Sweep compare_sweep(const std::string& scenario_path, const std::vector<std::string>& sets,
                    std::optional<int64_t> seed, const std::vector<SweepScheme>& schemes) {
  Sweep s;
  s.file = scenario_path;
  s.scenario_path = fs::absolute(scenario_path).lexically_normal().string();
  s.sets = sets;
  const ScenarioConfig base = load_scenario(s.scenario_path, s.sets);
  s.base_lb = base.lb;
  s.base_cc = base.cc;
  s.base_fc = base.fc;
  s.schemes = schemes;
  s.seeds = {seed.value_or(base.seed)};
  s.points.push_back({"base", {}, {}});
  for (size_t k = 0; k < s.schemes.size(); ++k) {
    s.runs.push_back({0, k, s.seeds[0], s.schemes[k].label});
    s.config_of(s.runs.back());  // a scheme that does not make a valid scenario fails here
  }
  return s;
}

ScenarioConfig Sweep::config_of(const SweepRun& run) const {
  const SweepScheme& scheme = schemes[run.scheme];
  std::vector<std::string> o = sets;
  // A scheme other than the base's starts from its own defaults (as `compare` does); the
  // base's own scheme keeps the parameters the scenario gives it.
  if (scheme.lb != base_lb) o.push_back("lb=" + scheme.lb);
  if (scheme.cc != base_cc) o.push_back("cc=" + scheme.cc);
  if (scheme.fc != base_fc) o.push_back("fc=" + scheme.fc);
  o.insert(o.end(), points[run.point].sets.begin(), points[run.point].sets.end());
  // A scheme's set that selects a scheme (`transport.path_policy: hermes`) replaces the
  // section the grid filled before it: the grid's values would be dropped without a word.
  for (const std::string& ss : scheme.sets) {
    const std::string key = ss.substr(0, ss.find('='));
    for (const std::string& ps : points[run.point].sets)
      if (ps.rfind(key + ".", 0) == 0)
        throw ConfigError("the scheme's set '" + ss + "' replaces " + key +
                          " after the point set '" + ps + "', which it would drop: select " + key +
                          " in the sweep's set or a case, before the grid");
  }
  o.insert(o.end(), scheme.sets.begin(), scheme.sets.end());
  ScenarioConfig c = load_scenario(scenario_path, o);
  c.seed = run.seed;
  return c;
}

std::vector<std::string> Sweep::coord_columns() const {
  std::vector<std::string> out;
  for (const auto& a : grid) out.push_back(a.key);
  if (!cases.empty()) out.push_back("case");
  return out;
}

}  // namespace rocelab
