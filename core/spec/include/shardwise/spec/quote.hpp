#pragma once
// Quoting for every language Shardwise writes a value into: POSIX shell (launch lines, sbatch
// scripts, the GKE Job's /bin/sh -c script, commands run over SSH), YAML and TOML double-quoted
// scalars, Python string literals, comment lines, and CSV fields (the store's run export, the CLI's
// compare --format csv, the GUI's table and run exports). One function per language, used by every
// generator (core/frameworks, core/cloud, core/dispatch), so that nothing from a model file or a
// user field runs as code: docs/framework-configs.md, "Values in generated files".
//
// Model ids are also checked where they are loaded (checkModelId): one character set, so the common
// case needs no quoting at all and reads as before.

#include <string>
#include <string_view>

namespace shardwise {

// One shell word: unchanged where every character is literal in every position for sh, dash, bash
// and zsh ([A-Za-z0-9_./,:+@%-]), else in single quotes, where nothing is special except the closing
// quote itself, written as '\'' (close, escaped quote, reopen). Newlines, `$(...)`, backticks, `;`
// and non-ASCII bytes stay literal inside the quotes.
std::string shellQuote(std::string_view value);

// A YAML double-quoted scalar: '"' and '\' escaped, control characters (newline included) and DEL
// as \n, \t, \r or \uXXXX, so the value stays on its line and reads back byte for byte.
std::string yamlQuote(std::string_view value);

// A TOML basic string (the same escapes, which TOML 1.0 reads identically).
std::string tomlQuote(std::string_view value);

// A Python str literal in double quotes: '"' and '\' escaped, control characters as \n, \t, \r or
// \xNN; other bytes (UTF-8) as they are.
std::string pythonQuote(std::string_view value);

// Text for the rest of a comment line ("# ..."): every control character (newline and carriage
// return included) becomes a space, so the value can never end the comment and start a line of code.
std::string commentText(std::string_view value);

// One field of an RFC 4180 CSV record: unchanged unless it holds a comma, a double quote, a CR or a
// LF; then in double quotes with each double quote doubled, so line breaks stay inside the field.
std::string csvField(std::string_view value);

// True when a spreadsheet would evaluate a text cell as a formula: it starts with = + - @, a tab or a
// CR (OWASP, "CSV Injection").
bool csvStartsLikeFormula(std::string_view text);

// A text cell: csvField of the text, with a single quote put in front where it starts like a formula
// so that a spreadsheet shows it as text. For text only: the number -1 would become the text '-1.
std::string csvText(std::string_view value);

// Undoes csvText's guard on a field read back ("'=1+2" -> "=1+2"); other text is unchanged.
std::string csvWithoutFormulaGuard(std::string text);

// The characters a model id may hold: ASCII letters, digits and . _ / + - (Hugging Face ids such as
// "meta-llama/Llama-3.1-8B" and every preset), beginning with a letter or digit, at most
// kMaxModelIdLength characters.
inline constexpr std::size_t kMaxModelIdLength = 128;
// Empty where `id` is a valid model id, else why not (naming the value, control characters escaped).
std::string modelIdProblem(std::string_view id);
// Throws SpecError(field, ...) where modelIdProblem(id) is not empty.
void checkModelId(std::string_view id, const std::string& field);

} // namespace shardwise
