#include "scenario/results/schema.h"

#include <algorithm>
#include <stdexcept>

#include "results_schema_json.h"  // generated from python/rocelab/schema.json: kResultsSchemaJson

namespace rocelab {

namespace {

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> out(1);
  for (char ch : key) {
    if (ch == '.')
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

bool is_placeholder(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '<' && segment.back() == '>';
}

// A placeholder stands for one or more segments: a scheme's figure or a workload's name may
// hold dots, and sweep.csv's <headline>.mean stands for by_size.small.afct_us.mean.
bool matches_from(const std::vector<std::string>& p, size_t i, const std::vector<std::string>& k,
                  size_t j) {
  if (i == p.size()) return j == k.size();
  if (j == k.size()) return false;
  if (!is_placeholder(p[i])) return p[i] == k[j] && matches_from(p, i + 1, k, j + 1);
  for (size_t end = j + 1; end <= k.size(); ++end)
    if (matches_from(p, i + 1, k, end)) return true;
  return false;
}

bool matches(const std::string& pattern, const std::string& key) {
  return matches_from(split_dots(pattern), 0, split_dots(key), 0);
}

// Markdown table cells: a '|' would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

ResultsSchema::ResultsSchema() : text_(kResultsSchemaJson) {
  // Ordered: the files and keys keep the schema's order.
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text_);
  for (const auto& [name, value] : doc.items()) {
    if (!value.is_array() || name == "headline" || name == "machine_dependent") continue;
    files_.push_back(name);
    auto& keys = keys_.emplace_back();
    for (const auto& k : value)
      keys.push_back(ResultKey{k.at("key").get<std::string>(), k.at("unit").get<std::string>(),
                               k.at("meaning").get<std::string>(), k.value("when", "")});
  }
  headline_ = doc.at("headline").get<std::vector<std::string>>();
  machine_dependent_ = doc.at("machine_dependent").get<std::vector<std::string>>();
}

const std::vector<ResultKey>& ResultsSchema::keys(const std::string& file) const {
  const auto it = std::find(files_.begin(), files_.end(), file);
  if (it == files_.end()) throw std::invalid_argument("results schema: no file '" + file + "'");
  return keys_[static_cast<size_t>(it - files_.begin())];
}

bool ResultsSchema::machine_dependent(const std::string& key) const {
  return std::find(machine_dependent_.begin(), machine_dependent_.end(), key) !=
         machine_dependent_.end();
}

// Of the definitions a key matches, the most literal one: in sweep.csv `<headline>.mean`
// over `<grid key>`, `scheme` over both.
const ResultKey* ResultsSchema::find(const std::string& file, const std::string& key) const {
  const ResultKey* best = nullptr;
  size_t best_literals = 0;
  for (const ResultKey& k : keys(file)) {
    if (!matches(k.key, key)) continue;
    const auto segments = split_dots(k.key);
    const size_t literals = static_cast<size_t>(std::count_if(
        segments.begin(), segments.end(), [](const std::string& s) { return !is_placeholder(s); }));
    if (!best || literals > best_literals) best = &k, best_literals = literals;
  }
  return best;
}

std::string ResultsSchema::csv_header(const std::string& file) const {
  std::string header;
  for (const ResultKey& k : keys(file)) header += (header.empty() ? "" : ",") + k.key;
  return header;
}

std::string ResultsSchema::markdown(const std::string& file) const {
  std::string out = "| key | unit | meaning |\n|---|---|---|\n";
  for (const ResultKey& k : keys(file)) {
    std::string meaning = k.meaning;
    if (!k.when.empty()) meaning += " (written when " + k.when + ")";
    out += "| `" + cell(k.key) + "` | " + cell(k.unit) + " | " + cell(meaning) + " |\n";
  }
  return out;
}

const nlohmann::json* find_dotted(const nlohmann::json& summary, const std::string& key) {
  const nlohmann::json* v = &summary;
  for (const std::string& part : split_dots(key)) {
    if (!v->is_object() || !v->contains(part)) return nullptr;
    v = &(*v)[part];
  }
  return v;
}

const ResultsSchema& results_schema() {
  static const ResultsSchema schema;
  return schema;
}

}  // namespace rocelab
