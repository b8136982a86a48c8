#include "formal/unroll.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace dg::formal {

namespace {

/// An s-expression: an atom (a symbol, numeral or literal, with its bars) or a list.
struct Sexp {
  std::string atom;
  std::vector<Sexp> list;
  bool is_atom() const { return !atom.empty(); }
};

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The top-level commands of `text`; comments dropped. Iterative, so deep nesting cannot
/// overflow the stack.
std::vector<Sexp> parse_commands(const std::string& text) {
  std::vector<Sexp> top;
  std::vector<Sexp> open;
  auto add = [&](Sexp e) {
    if (open.empty())
      top.push_back(std::move(e));
    else
      open.back().list.push_back(std::move(e));
  };
  std::size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == ';') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '(') {
      open.emplace_back();
      ++i;
    } else if (c == ')') {
      if (open.empty()) throw Unsupported(fmt::format("unbalanced ')' at offset {}", i));
      Sexp e = std::move(open.back());
      open.pop_back();
      add(std::move(e));
      ++i;
    } else if (c == '|') {
      std::size_t end = text.find('|', i + 1);
      if (end == std::string::npos) throw Unsupported(fmt::format("unterminated |symbol| at offset {}", i));
      add(Sexp{text.substr(i, end + 1 - i), {}});
      i = end + 1;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && !(text[j] == '"' && (j + 1 >= n || text[j + 1] != '"'))) j += text[j] == '"' ? 2 : 1;
      if (j >= n) throw Unsupported(fmt::format("unterminated string at offset {}", i));
      add(Sexp{text.substr(i, j + 1 - i), {}});
      i = j + 1;
    } else {
      std::size_t j = i;
      while (j < n && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != '\r' && text[j] != '(' &&
             text[j] != ')' && text[j] != ';' && text[j] != '|' && text[j] != '"')
        ++j;
      add(Sexp{text.substr(i, j - i), {}});
      i = j;
    }
  }
  if (!open.empty()) throw Unsupported("unbalanced '(' at the end of the text");
  return top;
}

std::string render(const Sexp& e) {
  if (e.is_atom()) return e.atom;
  std::string s = "(";
  for (std::size_t i = 0; i < e.list.size(); ++i) s += (i ? " " : "") + render(e.list[i]);
  return s + ")";
}

/// A function's name without its bars.
std::string bare(const std::string& symbol) {
  if (symbol.size() >= 2 && symbol.front() == '|' && symbol.back() == '|') return symbol.substr(1, symbol.size() - 2);
  return symbol;
}

}  // namespace

std::string UnrolledSystem::at(const std::string& name, const std::vector<int>& steps) {
  std::string s = "|" + name;
  for (int st : steps) s += fmt::format("@s{}", st);
  return s + "|";
}

void UnrolledSystem::emit(const Item& item, const std::vector<int>& steps, std::string& out) const {
  out += item.pieces[0];
  for (std::size_t i = 0; i < item.holes.size(); ++i) {
    out += fmt::format("@s{}", steps[item.holes[i]]);
    out += item.pieces[i + 1];
  }
}

std::string UnrolledSystem::steps(int last) const {
  std::string out;
  for (const auto& item : items_)
    if (item.arity == 0) emit(item, {}, out);
  for (int s = 0; s <= last; ++s) {
    for (const auto& item : items_)
      if (item.arity == 1) emit(item, {s}, out);
    if (s > 0)
      for (const auto& item : items_)
        if (item.arity == 2) emit(item, {s - 1, s}, out);
  }
  return out;
}

std::optional<UnrolledSystem> UnrolledSystem::parse(const std::string& smt2, const std::string& top, std::string* why) {
  const std::string state_sort = "|" + top + "_s|";
  UnrolledSystem sys;
  std::map<std::string, int> arity;  // functions of states declared or defined so far
  try {
    for (const Sexp& cmd : parse_commands(smt2)) {
      if (cmd.is_atom() || cmd.list.empty() || !cmd.list[0].is_atom())
        throw Unsupported("a top-level form that is not a command");
      const std::string& verb = cmd.list[0].atom;
      if (verb == "declare-sort") {
        if (cmd.list.size() < 2 || cmd.list[1].atom != state_sort)
          throw Unsupported("a sort other than the module's state (a hierarchy of modules)");
        continue;
      }
      if (verb != "declare-fun" && verb != "define-fun") throw Unsupported("the command '" + verb + "'");
      if (cmd.list.size() != (verb == "declare-fun" ? 4u : 5u) || !cmd.list[1].is_atom() || cmd.list[2].is_atom())
        throw Unsupported("a malformed " + verb);
      const std::string name = bare(cmd.list[1].atom);
      if (name.find('@') != std::string::npos) throw Unsupported("the name '" + name + "' (it has an '@')");
      // Parameters: the states this function is of.
      std::vector<std::string> params;
      for (const Sexp& p : cmd.list[2].list) {
        if (verb == "declare-fun") {
          if (render(p) != state_sort) throw Unsupported("a function of a value that is not a state: " + name);
          params.push_back("");
        } else {
          if (p.is_atom() || p.list.size() != 2 || !p.list[0].is_atom() || render(p.list[1]) != state_sort)
            throw Unsupported("a function of a value that is not a state: " + name);
          params.push_back(p.list[0].atom);
        }
      }
      if (params.size() > 2) throw Unsupported("a function of more than two states: " + name);
      const std::string result = render(cmd.list[3]);
      if (result.find(state_sort) != std::string::npos) throw Unsupported("a function returning a state: " + name);

      Item item;
      item.arity = static_cast<int>(params.size());
      item.pieces.push_back("(" + verb + " |" + name);
      for (int p = 0; p < item.arity; ++p) {
        item.holes.push_back(p);
        item.pieces.push_back("");
      }
      item.pieces.back() += "| () " + result;
      if (verb == "define-fun") {
        item.pieces.back() += " ";
        // The body, with each application of a function to states written as its instance.
        auto param_index = [&](const Sexp& e) -> int {
          if (!e.is_atom()) return -1;
          for (std::size_t i = 0; i < params.size(); ++i)
            if (params[i] == e.atom) return static_cast<int>(i);
          return -1;
        };
        struct Frame {
          const Sexp* e;
          std::size_t next;
        };
        std::vector<Frame> stack{{&cmd.list[4], 0}};
        while (!stack.empty()) {
          Frame& f = stack.back();
          const Sexp& e = *f.e;
          if (e.is_atom()) {
            if (param_index(e) >= 0) throw Unsupported("a state used as a value in " + name);
            item.pieces.back() += e.atom;
            stack.pop_back();
            continue;
          }
          if (f.next == 0) {
            // An application (|F| p ...) of a known function of that many states.
            bool app = e.list.size() >= 2 && e.list[0].is_atom();
            if (app) {
              auto it = arity.find(bare(e.list[0].atom));
              app = it != arity.end() && it->second == static_cast<int>(e.list.size()) - 1;
              for (std::size_t i = 1; app && i < e.list.size(); ++i) app = param_index(e.list[i]) >= 0;
            }
            if (app) {
              item.pieces.back() += "|" + bare(e.list[0].atom);
              for (std::size_t i = 1; i < e.list.size(); ++i) {
                item.holes.push_back(param_index(e.list[i]));
                item.pieces.push_back("");
              }
              item.pieces.back() += "|";
              stack.pop_back();
              continue;
            }
            item.pieces.back() += "(";
          }
          if (f.next < e.list.size()) {
            if (f.next > 0) item.pieces.back() += " ";
            const Sexp* child = &e.list[f.next++];
            stack.push_back({child, 0});
          } else {
            item.pieces.back() += ")";
            stack.pop_back();
          }
        }
      }
      item.pieces.back() += ")\n";
      arity[name] = item.arity;
      sys.items_.push_back(std::move(item));
    }
  } catch (const Unsupported& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  return sys;
}

}  // namespace dg::formal
