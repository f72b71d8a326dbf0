// A name -> factory table with one-line descriptions, so that a scheme is picked by name
// from a scenario and listed by `rocelab list`. Knows nothing about what it builds.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rocelab {

template <class Factory>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  void add(std::string name, std::string description, Factory factory) {
    if (entries_.count(name)) throw std::logic_error("registry: duplicate name " + name);
    entries_.emplace(name, Entry{name, std::move(description), std::move(factory)});
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  std::vector<const Entry*> all() const {
    std::vector<const Entry*> out;
    for (const auto& [name, e] : entries_) out.push_back(&e);
    return out;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, e] : entries_) out.push_back(name);
    return out;
  }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace rocelab
