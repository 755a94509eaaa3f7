#pragma once
// "Did you mean" for a mistyped name: the nearest of the known names by edit distance (Levenshtein
// with swaps, ignoring case), offered only when it is close enough to be a typo of it.

#include <string>
#include <string_view>
#include <vector>

namespace shardwise {

// Insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b` (optimal
// string alignment), ASCII letters compared without case.
std::size_t editDistance(std::string_view a, std::string_view b);

// The known names nearest to `word` (several where they are equally near), each within
// max(1, min(3, length / 3)) edits of it (the shorter word's length); else the one known name that
// `word` is a prefix of. None for a known name, or where nothing is that close.
std::vector<std::string> nearestNames(std::string_view word, const std::vector<std::string>& known);

// "; did you mean 'NAME'?" ("'A' or 'B'" for several) for nearestNames, else empty: appended to an error that names
// `word`.
std::string didYouMean(std::string_view word, const std::vector<std::string>& known);

} // namespace shardwise
