// The results schema: every key of summary.json, flows.csv, compare.csv, runs.csv and
// sweep.csv with its unit and meaning, defined once in python/rocelab/schema.json (embedded
// in the binary at build time). The writers take flows.csv's columns and the headline keys
// from it, `rocelab schema` prints it and docs/output.md's tables are generated from it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rocelab {

struct ResultKey {
  std::string key;      // dotted; <...> stands for one segment or more (<bucket>, <name>)
  std::string unit;     // a unit of the schema's "units" table
  std::string meaning;  // one sentence or a few
  std::string when;     // the configuration under which it is written; empty: always
};

class ResultsSchema {
 public:
  // The keys of one file ("summary.json", "flows.csv", ...), in the schema's order.
  const std::vector<ResultKey>& keys(const std::string& file) const;
  // A CSV file's header line: its keys joined by commas (no line end).
  std::string csv_header(const std::string& file) const;
  // The summary keys compare.csv, runs.csv and sweep.csv carry, flattened, in column order.
  const std::vector<std::string>& headline() const { return headline_; }
  // Headline keys that measure the machine, not the model: kept out of sweep statistics.
  bool machine_dependent(const std::string& key) const;
  // The definition a concrete key ("by_size.small.afct_us") falls under, or nullptr.
  const ResultKey* find(const std::string& file, const std::string& concrete_key) const;
  // The file's keys as a Markdown table (docs/output.md).
  std::string markdown(const std::string& file) const;
  // The file names, in the schema's order.
  const std::vector<std::string>& files() const { return files_; }
  const std::string& json_text() const { return text_; }

 private:
  friend const ResultsSchema& results_schema();

  ResultsSchema();
  std::string text_;
  std::vector<std::string> files_;
  std::vector<std::vector<ResultKey>> keys_;
  std::vector<std::string> headline_, machine_dependent_;
};

const ResultsSchema& results_schema();

// The value at a dotted key of a summary ("by_size.small.afct_us"), or nullptr.
const nlohmann::json* find_dotted(const nlohmann::json& summary, const std::string& key);

}  // namespace rocelab
