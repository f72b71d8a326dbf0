// A map kept as a sorted vector: iteration in key order (the same on every standard
// library) and, once its capacity has grown, no allocation per insert or erase. For the
// small keyed tables of schemes (congested flows, isolation entries).
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace rocelab {

template <class K, class V>
class FlatMap {
 public:
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

  iterator find(const K& key) {
    const iterator it = lower(key);
    return it != items_.end() && it->first == key ? it : items_.end();
  }
  const_iterator find(const K& key) const {
    const const_iterator it =
        std::lower_bound(items_.begin(), items_.end(), key,
                         [](const value_type& e, const K& k) { return e.first < k; });
    return it != items_.end() && it->first == key ? it : items_.end();
  }
  bool contains(const K& key) const { return find(key) != end(); }
  // Erases every item `pred` holds for, in one pass (erasing one by one shifts the rest
  // each time).
  template <class Pred>
  size_t erase_if(Pred pred) {
    return std::erase_if(items_, [&](const value_type& kv) { return pred(kv.first, kv.second); });
  }
  void clear() { items_.clear(); }
  // Inserts (key, value) unless the key is there; the entry and whether it was inserted.
  std::pair<iterator, bool> emplace(const K& key, V value) {
    const iterator it = lower(key);
    if (it != items_.end() && it->first == key) return {it, false};
    return {items_.insert(it, value_type(key, std::move(value))), true};
  }
  std::pair<iterator, bool> try_emplace(const K& key) { return emplace(key, V{}); }
  iterator erase(iterator it) { return items_.erase(it); }
  size_t erase(const K& key) {
    const iterator it = find(key);
    if (it == items_.end()) return 0;
    items_.erase(it);
    return 1;
  }

 private:
  iterator lower(const K& key) {
    return std::lower_bound(items_.begin(), items_.end(), key,
                            [](const value_type& e, const K& k) { return e.first < k; });
  }
  std::vector<value_type> items_;
};

}  // namespace rocelab
