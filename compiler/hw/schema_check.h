// check_schema: validates a JSON document against the small subset of JSON Schema (draft 2020-12)
// that hw-models/schema.json (generated from the field tables of hw_model.cpp) uses. There is no
// JSON-schema library for C++ in Debian, and the subset is small enough to implement exactly:
//
//   type (string or array), enum, required, properties, patternProperties, additionalProperties
//   (false or a schema), items (one schema), minItems, maxItems, uniqueItems, minimum, maximum,
//   exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, $ref ("#/$defs/<name>").
//
// Annotations ($schema, $id, $defs, $comment, title, description, default, examples) are ignored;
// any other keyword is an error in the schema, so the schema cannot silently rely on something
// this checker does not do. Two deliberate limits: strings longer than kMaxPatternInput are
// never matched against `pattern` or `patternProperties` (a long string fails the pattern; this
// keeps std::regex on short inputs), and an integral JSON float is an integer only below 2^53.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace dg::hw {

inline constexpr std::size_t kMaxPatternInput = 256;

/// Checks `doc` against `schema`. At the first violation throws dg::UserError
/// "<file>: <json path>: <problem>", e.g. "hw-models/x.json: gpu.sm_count: expected integer in
/// [1, 1024], got \"many\"" or "hw-models/x.json: gpu: unknown field 'sm_cont' (did you mean
/// 'sm_count'?)". A schema that uses something outside the subset throws dg::UserError naming
/// `schema_file`.
void check_schema(const nlohmann::json& schema, const nlohmann::json& doc, const std::string& file,
                  const std::string& schema_file);

}  // namespace dg::hw
