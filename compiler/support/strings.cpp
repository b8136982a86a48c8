#include "support/strings.h"

#include <algorithm>
#include <cctype>

namespace dg {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int sub = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) !=
                               std::tolower(static_cast<unsigned char>(b[j - 1])));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  int best_d = 1 << 30;
  for (const auto& c : candidates) {
    int d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // Close enough: at most a third of the word's letters changed (and at least one allowed).
  int limit = std::max<int>(1, static_cast<int>(std::max(word.size(), best.size())) / 3);
  return (!best.empty() && best_d <= limit) ? best : std::string();
}

std::string join_words(const std::vector<std::string>& words, std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += (i + 1 == words.size()) ? std::string(last_sep) : std::string(", ");
    out += words[i];
  }
  return out;
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace dg
