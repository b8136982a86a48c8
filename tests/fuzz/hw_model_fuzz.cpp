// libFuzzer entry: bytes -> hw::from_text against the real hw-models/schema.json. A bad model must
// come out as dg::UserError; anything else escaping (nlohmann exceptions, InternalError,
// std::out_of_range), a crash, a hang or a leak is a bug. A model that loads must survive
// to_json -> from_json unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hw/hw_model.h"
#include "support/error.h"

namespace {

const nlohmann::json& schema() {
  static const nlohmann::json s = dg::hw::load_schema(DEEPGEMM_HW_SCHEMA);
  return s;
}

// The model's own name as the file stem, so that inputs derived from the seeds pass the name check
// and reach the deeper checks.
std::string file_for(const std::string& text) {
  auto at = text.find("\"name\"");
  if (at != std::string::npos) {
    auto open = text.find('"', text.find(':', at) + 1);
    auto close = open == std::string::npos ? open : text.find('"', open + 1);
    if (close != std::string::npos && close - open - 1 <= 32) {
      std::string name = text.substr(open + 1, close - open - 1);
      bool plain = !name.empty();
      for (char c : name) plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
      if (plain) return "hw-models/" + name + ".json";
    }
  }
  return "hw-models/fuzz.json";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string file = file_for(text);
  dg::hw::HwModel m;
  try {
    m = dg::hw::from_text(text, file, schema());
  } catch (const dg::UserError& e) {
    if (std::string(e.what()).rfind(file, 0) != 0) {
      std::cerr << "error does not name the file: " << e.what() << "\n";
      std::abort();
    }
    return 0;
  }
  // Loaded: printing works and the JSON form reloads to the same model.
  std::ostringstream os;
  os << m;
  nlohmann::json j = dg::hw::to_json(m);
  try {
    dg::hw::HwModel again = dg::hw::from_json(j, file, schema());
    if (dg::hw::to_json(again) != j) {
      std::cerr << "to_json/from_json round trip changed the model\n";
      std::abort();
    }
  } catch (const dg::UserError& e) {
    std::cerr << "to_json output does not load: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}
