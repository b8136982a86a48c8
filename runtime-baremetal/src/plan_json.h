// A tiny, bounds-checked, allocation-free reader for the few fields of a plan (JSON text) that the
// runtime needs. It is not a general JSON parser: it walks the members of one object, skipping
// values it is not asked about (nested objects and arrays included, strings with escapes), and
// converts integers, booleans and escape-free strings. It never reads outside [text, text + size),
// never recurses, and rejects malformed input instead of guessing.
#pragma once

#include "freestanding.h"

namespace dg::bm::json {

/// A slice of the JSON text: one value, from its first to one past its last character.
struct Span {
  const char* p = nullptr;
  size_t n = 0;
};

enum class Result : uint8_t { Ok, Missing, Malformed, WrongType, OutOfRange, TooLong, Duplicate };

/// Checks that `text` is exactly one JSON object (RFC 8259: strings, escapes, numbers, literals,
/// nesting at most 64 deep) with nothing but whitespace after it; Malformed with the byte offset
/// of the first error in `error_at` otherwise. Iterative, no allocation.
Result validate(Span text, size_t* error_at);

/// Finds member `key` of the object `obj` (leading and trailing whitespace allowed). Members are
/// compared by exact, escape-free key text; a key given twice is Duplicate (readers that keep the
/// first and those that keep the last would disagree). Missing when the object is well
/// formed up to the end and has no such key, Malformed when the text is not a well-formed object
/// (as far as it was read) or nests deeper than 64 levels.
Result find(Span obj, const char* key, Span* value);

/// Integer value (optional '-', digits, no fraction or exponent) within [lo, hi].
Result to_int(Span v, int64_t lo, int64_t hi, int64_t* out);
/// true / false.
Result to_bool(Span v, bool* out);
/// String without escapes, copied NUL-terminated into out[0, cap).
Result to_str(Span v, char* out, size_t cap);

/// Short English description of a Result ("missing", "malformed", ...).
const char* describe(Result r);

}  // namespace dg::bm::json
